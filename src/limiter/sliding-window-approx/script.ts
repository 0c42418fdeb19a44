/**
 * @module The sliding-window-approx Lua: two fixed-window counters, the previous one weighted by how much
 * of it the sliding window still covers. Arithmetic is kept in integers scaled by the window
 * length (estimate × window), so Lua and the TypeScript model agree to the unit.
 */
import { assembleOneRuleScript } from "../assemble-script.ts";

/**
 * Registers `ALGORITHMS.weighted`; KEYS: this window's counter, then the previous window's. A
 * refused cost that fits this window with the previous one's share faded waits for that share to
 * fade; else it waits into the next window, where this one is the previous. A counter lives until
 * the end of the next window, which reads it as its previous one.
 */
export const lua = `
ALGORITHMS["weighted"] = { keys = 2, check = function(keys, now, cost, limit, window_ms)
  local window_start = math.floor(now / window_ms) * window_ms -- ms
  local overlap = window_ms - (now - window_start) -- ms of the previous window still covered
  local current = tonumber(redis.call("GET", keys[1]) or "0") -- requests this window
  local previous = tonumber(redis.call("GET", keys[2]) or "0") -- requests last window
  local used = previous * overlap + current * window_ms -- estimate, requests x ms
  local capacity = limit * window_ms -- requests x ms
  local reset_at = now -- when nothing is left to decay, ms
  if current > 0 then reset_at = window_start + 2 * window_ms
  elseif previous > 0 then reset_at = window_start + window_ms end
  local ok = used + cost * window_ms <= capacity
  local retry_ms = 0 -- ms until this cost fits
  if ok then
  elseif cost > limit then
    retry_ms = reset_at - now
  elseif current + cost <= limit then
    retry_ms = window_start + window_ms - math.floor((limit - current - cost) * window_ms / previous) - now
  else
    retry_ms = window_start + window_ms + math.max(window_ms - math.floor((limit - cost) * window_ms / current), 0) - now
  end
  return {
    ok = ok,
    retry_ms = retry_ms,
    remaining = math.floor((capacity - used) / window_ms),
    reset_at = reset_at,
    charged_remaining = math.floor((capacity - used - cost * window_ms) / window_ms),
    charged_reset_at = window_start + 2 * window_ms,
    charge = function()
      if redis.call("INCRBY", keys[1], cost) == cost then
        redis.call("PEXPIRE", keys[1], window_start + 2 * window_ms - now + TTL_GRACE_MS)
      end
    end,
  }
end }
`;

/** The single-rule sliding-window-approx script. */
export const source = assembleOneRuleScript(lua);
/** SHA1 of {@link source}, pinned; `npm run hash-scripts` prints a fresh one after an edit. */
export const sha1 = "9655e26a1988096b75ac2d3cfcbe47d08e2f1037";
