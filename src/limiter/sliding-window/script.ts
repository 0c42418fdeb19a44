/**
 * @module The sliding-window Lua: the window cut into `buckets` sub-windows, each kept as its
 * admitted count and the times of its first and last admission, packed into one string per client
 * (a string costs Redis no per-field overhead: about half the memory of a hash of the same buckets).
 * The string is the newest bucket written (the head: {@link HEAD_BYTES} bytes, big-endian), then one
 * record per slot: the count (just enough bytes for `limit + 1`, see {@link countBytes}) and two
 * times. Slots are the bucket index modulo `buckets + 1`, the most buckets a window can touch. Times
 * are ticks (width / 255, rounded up, at least 1 ms) from the bucket's start, rounded up: a request
 * is recorded at most one tick late, never early, so the count stays on the safe side. Once read,
 * a bucket is one packed number, `(count × 256 + first) × 256 + last`, as the model holds it.
 */
import { assembleOneRuleScript } from "../assemble-script.ts";

/** Bytes of the head (the newest bucket's index): 2^48 buckets of 1 ms, until the year 10889 (plan.ts refuses a later `now`). */
export const HEAD_BYTES = 6;

/**
 * Bytes of one bucket's count for a rule: enough for `limit + 1`, the most one bucket can hold (an
 * admission needs the counted requests, at least all of a bucket's but one, plus its cost to fit).
 *
 * @example
 * countBytes(100) // 1
 * countBytes(10_000) // 2
 */
export function countBytes(limit: number): number {
  let bytes = 1;
  while (256 ** bytes <= limit + 1) bytes += 1;
  return bytes;
}

/**
 * Registers `ALGORITHMS.buckets`; KEYS: the client's packed string of buckets. Of each bucket, the
 * check counts as in the window (`bucket.counted`) all of its requests while its first is in it,
 * none once its last has left, and between, all but the first: the others may lie anywhere up to
 * the last, so they are counted, never too few. A Worker whose clock lags by more than the slots
 * hold charges the oldest slot's start (`at`). `fields` is the hash this string replaced, read back:
 * slot → packed bucket, `"h"` → head. A refusal's wait walks the counted buckets oldest first
 * until `excess` requests have left; a bucket whose count is all counted and whose first request
 * came before its last lets the first leave alone. A charge into a bucket past the head empties
 * the slots of the buckets skipped since; into the head's own, it adds to its record. The string
 * expires when its newest request leaves. Comments that explain a step live here rather than
 * in the Lua, whose text, comments included, the Worker's bundle carries.
 */
export const lua = `
ALGORITHMS["buckets"] = { keys = 1, check = function(keys, now, cost, limit, window_ms, burst, buckets)
  local key = keys[1] -- string: head, then one record per slot
  local slots = buckets + 1 -- slot of bucket n: n % slots
  local count_bytes = 1 -- bytes of a record's count: enough for limit + 1
  while 256 ^ count_bytes <= limit + 1 do count_bytes = count_bytes + 1 end
  local record = count_bytes + 2 -- bytes per slot: count, first, last
  local width = math.ceil(window_ms / buckets) -- ms per bucket
  local tick = math.max(math.ceil((width - 1) / 255), 1) -- ms per stored time unit
  local function number_at(text, at, bytes) -- big-endian unsigned integer, 1-based offset
    local value = 0
    for n = at, at + bytes - 1 do value = value * 256 + string.byte(text, n) end
    return value
  end
  local function bytes_of(value, bytes) -- big-endian
    local out = {}
    for n = bytes, 1, -1 do out[n] = string.char(value % 256) value = math.floor(value / 256) end
    return table.concat(out)
  end
  local raw = redis.call("GET", key)
  local fields = {} -- slot -> packed bucket, "h" -> head
  if raw then
    fields["h"] = number_at(raw, 1, ${HEAD_BYTES})
    for slot = 0, slots - 1 do
      local at = ${HEAD_BYTES} + slot * record + 1
      local count = number_at(raw, at, count_bytes)
      if count > 0 then
        fields[string.format("%d", slot)] = (count * 256 + string.byte(raw, at + count_bytes)) * 256 + string.byte(raw, at + count_bytes + 1)
      end
    end
  end
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
  if ok then
  elseif cost > limit then
    retry_ms = reset_at - now
  else
    local excess = used + cost - limit -- requests that must leave first, oldest first
    for _, bucket in ipairs(found) do
      if bucket.counted == bucket.count and bucket.first < bucket.last then
        excess = excess - 1
        if excess <= 0 then retry_ms = bucket.first + window_ms - now break end
        bucket.counted = bucket.counted - 1
      end
      excess = excess - bucket.counted
      if excess <= 0 then retry_ms = bucket.last + window_ms - now break end
    end
  end
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
      if index > head then
        for skipped = math.max(head + 1, index - slots + 1), index - 1 do
          fields[string.format("%d", skipped % slots)] = nil
        end
        fields["h"] = index
      elseif fields[slot] then
        local packed = fields[slot]
        count = math.floor(packed / 65536) + cost
        first = math.min(math.floor(packed / 256) % 256, ticks)
        last = math.max(packed % 256, ticks)
      end
      fields[slot] = (count * 256 + first) * 256 + last
      local out = { bytes_of(fields["h"], ${HEAD_BYTES}) }
      for n = 0, slots - 1 do
        local packed = fields[string.format("%d", n)] or 0
        out[#out + 1] = bytes_of(math.floor(packed / 65536), count_bytes) .. bytes_of(packed % 65536, 2)
      end
      redis.call("SET", key, table.concat(out), "PX", string.format("%d", charged_reset_at - now + TTL_GRACE_MS))
    end,
  }
end }
`;

/** The single-rule sliding-window script. */
export const source = assembleOneRuleScript(lua);
/** SHA1 of {@link source}, pinned; `npm run hash-scripts` prints a fresh one after an edit. */
export const sha1 = "61d082cb0fff45a77e14572132d71f78a1addfa1";
