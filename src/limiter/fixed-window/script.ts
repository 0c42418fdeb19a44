/**
 * @module The fixed-window Lua: the seed's INCR with a TTL set when the key is created, in one
 * script, extended to report remaining and reset. The key carries the window index
 * (`…:<floor(now / window)>`), so a window's counter is never reused and the decision is a pure
 * function of `now`.
 */
import { assembleOneRuleScript } from "../assemble-script.ts";

/**
 * Registers `ALGORITHMS.fixed`; KEYS: the counter of the window that contains `now`. A counter
 * created by this charge expires when its window ends, plus the grace.
 */
export const lua = `
ALGORITHMS["fixed"] = { keys = 1, check = function(keys, now, cost, limit, window_ms)
  local key = keys[1] -- counter of this window, requests
  local count = tonumber(redis.call("GET", key) or "0") -- requests already counted, requests
  local reset_at = (math.floor(now / window_ms) + 1) * window_ms -- end of this window, ms
  return {
    ok = count + cost <= limit,
    retry_ms = reset_at - now,
    remaining = limit - count,
    reset_at = reset_at,
    charged_remaining = limit - count - cost,
    charged_reset_at = reset_at,
    charge = function()
      if redis.call("INCRBY", key, cost) == cost then
        redis.call("PEXPIRE", key, reset_at - now + TTL_GRACE_MS)
      end
    end,
  }
end }
`;

/** The single-rule fixed-window script. */
export const source = assembleOneRuleScript(lua);
/** SHA1 of {@link source}, pinned; `npm run hash-scripts` prints a fresh one after an edit. */
export const sha1 = "f866287bb24e6bca143b3f2e3ffa8f0deed147b5";
