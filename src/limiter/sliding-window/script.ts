/**
 * @module The sliding-window Lua: the window cut into `buckets` sub-windows, each kept as its
 * admitted count and the times of its first and last admission, in one hash. Slots are the bucket
 * index modulo {@link SLOTS} (small integer fields keep the hash a compact listpack), and `h` holds
 * the newest bucket written, from which each slot's bucket index follows. A bucket is one packed
 * integer, `(count × 256 + first) × 256 + last`, its times as ticks (width / 255, rounded up, at
 * least 1 ms) from the bucket's start, rounded up: a request is recorded at most one tick late,
 * never early, so the count stays on the safe side, and the value stays a small integer (5 bytes in
 * the listpack whatever the window).
 */
import { assembleScript } from "../assemble-script";

/** Slots in the hash: more than the most buckets a window can span (100 sub-windows, plus the partial one). */
export const SLOTS = 128;

/** Registers `ALGORITHMS.buckets`; KEYS: the client's hash of buckets. */
export const lua = `
ALGORITHMS["buckets"] = { keys = 1, check = function(keys, now, cost, limit, window_ms, burst, buckets)
  local key = keys[1] -- hash: slot -> packed bucket, "h" -> newest bucket index
  local slots = ${SLOTS} -- slot of bucket n: n % slots
  local width = math.ceil(window_ms / buckets) -- ms per bucket
  local tick = math.max(math.ceil((width - 1) / 255), 1) -- ms per stored time unit: a time fits a byte
  local raw = redis.call("HGETALL", key)
  local fields = {}
  for n = 1, #raw, 2 do fields[raw[n]] = tonumber(raw[n + 1]) end
  local head = fields["h"] or -1 -- newest bucket written, index; -1: none
  local start = now - window_ms -- requests at or before this have left (start, now], ms
  local found = {} -- buckets still counted, oldest first
  local used = 0 -- requests counted, never fewer than in (start, now]
  local newest = now -- last admission in the newest bucket, ms
  for index = math.max(math.floor(start / width), head - slots + 1, 0), head do
    local packed = fields[string.format("%d", index % slots)]
    if packed then
      local bucket = {
        first = index * width + math.min(math.floor(packed / 256) % 256 * tick, width - 1), -- ms
        last = index * width + math.min(packed % 256 * tick, width - 1), -- ms
        count = math.floor(packed / 65536), -- requests
      }
      newest = bucket.last
      -- In the window: all while the first is; none once the last has left; between, all but the
      -- first (the others may lie anywhere up to the last, so they are counted: never too few).
      if start < bucket.first then bucket.counted = bucket.count
      elseif start < bucket.last then bucket.counted = bucket.count - 1
      else bucket.counted = 0 end
      if bucket.counted > 0 then
        used = used + bucket.counted
        found[#found + 1] = bucket
      end
    end
  end
  local reset_at = used > 0 and newest + window_ms or now -- when nothing is counted any more, ms
  local ok = used + cost <= limit
  local retry_ms = 0 -- ms until this cost fits
  if ok then -- nothing to wait for
  elseif cost > limit then
    retry_ms = reset_at - now
  else
    local excess = used + cost - limit -- requests that must leave first, oldest first
    for _, bucket in ipairs(found) do
      if bucket.counted == bucket.count and bucket.first < bucket.last then -- its first leaves alone
        excess = excess - 1
        if excess <= 0 then retry_ms = bucket.first + window_ms - now break end
        bucket.counted = bucket.counted - 1
      end
      excess = excess - bucket.counted
      if excess <= 0 then retry_ms = bucket.last + window_ms - now break end
    end
  end
  -- A Worker whose clock lags by more than the slots hold writes at the oldest slot's start.
  local at = math.max(now, (head - slots + 1) * width) -- ms
  local index = math.floor(at / width) -- the bucket charged
  local slot = string.format("%d", index % slots)
  local ticks = math.ceil((at - index * width) / tick) -- when it is recorded, ticks into its bucket
  local charged_reset_at = math.max(newest, index * width + math.min(ticks * tick, width - 1)) + window_ms
  return {
    ok = ok,
    retry_ms = retry_ms,
    remaining = limit - used,
    reset_at = reset_at,
    charged_remaining = limit - used - cost,
    charged_reset_at = charged_reset_at,
    charge = function()
      local count, first, last = cost, ticks, ticks -- requests, ticks, ticks
      if index > head then -- a new bucket: empty the slots of the buckets skipped since the head
        local stale = {}
        for skipped = math.max(head + 1, index - slots + 1), index - 1 do
          local name = string.format("%d", skipped % slots)
          if fields[name] then stale[#stale + 1] = name end
        end
        if #stale > 0 then redis.call("HDEL", key, unpack(stale)) end
        redis.call("HSET", key, "h", string.format("%d", index))
      elseif fields[slot] then -- this bucket already holds requests
        local packed = fields[slot]
        count = math.floor(packed / 65536) + cost
        first = math.min(math.floor(packed / 256) % 256, ticks)
        last = math.max(packed % 256, ticks)
      end
      redis.call("HSET", key, slot, string.format("%d", (count * 256 + first) * 256 + last))
      redis.call("PEXPIRE", key, charged_reset_at - now + TTL_GRACE_MS) -- until the newest request leaves
    end,
  }
end }
`;

/** The single-rule sliding-window script. */
export const source = assembleScript([lua]);
/** SHA1 of {@link source}, pinned; `npm run hash-scripts` prints a fresh one after an edit. */
export const sha1 = "b51f0976849a9048b1cac6f2b41a620a75affd07";
