/**
 * @module The token-bucket Lua: GCRA, one stored timestamp, the theoretical arrival time (TAT).
 * Time is counted in ticks of 1/limit ms, so the emission interval (window / limit ms) is exactly
 * `window_ms` ticks and every quantity is an integer; the TAT is stored as `<ms>:<ticks>`
 * (ms since the epoch plus the sub-ms remainder), so a rate like 3/1s has no rounding drift.
 */
import { assembleOneRuleScript } from "../assemble-script.ts";

/** Registers `ALGORITHMS.gcra`; KEYS: the client's TAT, `<ms>:<ticks>`, expiring once the TAT has passed. */
export const lua = `
ALGORITHMS["gcra"] = { keys = 1, check = function(keys, now, cost, limit, window_ms, burst)
  local key = keys[1] -- theoretical arrival time, "<ms>:<ticks>"
  local backlog = 0 -- how far the TAT is ahead of now, ticks (1 tick = 1/limit ms)
  local stored = redis.call("GET", key)
  if stored then
    local tat_ms, tat_ticks = string.match(stored, "^(%d+):(%d+)$")
    backlog = math.max((tonumber(tat_ms) - now) * limit + tonumber(tat_ticks), 0)
  end
  local capacity = burst * window_ms -- the burst's worth of emission intervals, ticks
  local charged = backlog + cost * window_ms -- backlog once this request is admitted, ticks
  local ok = charged <= capacity
  local retry_ms = 0 -- ms until this cost fits
  if not ok and cost > burst then
    retry_ms = math.ceil(backlog / limit)
  elseif not ok then
    retry_ms = math.ceil((charged - capacity) / limit)
  end
  return {
    ok = ok,
    retry_ms = retry_ms,
    remaining = math.floor((capacity - backlog) / window_ms),
    reset_at = now + math.ceil(backlog / limit),
    charged_remaining = math.floor((capacity - charged) / window_ms),
    charged_reset_at = now + math.ceil(charged / limit),
    charge = function()
      local whole_ms = math.floor(charged / limit) -- ms part of the new TAT
      local tat = string.format("%d:%d", now + whole_ms, charged - whole_ms * limit)
      redis.call("SET", key, tat, "PX", math.ceil(charged / limit) + TTL_GRACE_MS)
    end,
  }
end }
`;

/** The single-rule token-bucket script. */
export const source = assembleOneRuleScript(lua);
/** SHA1 of {@link source}, pinned; `npm run hash-scripts` prints a fresh one after an edit. */
export const sha1 = "4d736ba8e7de65c326653a8b9a4c8b6d01d9044c";
