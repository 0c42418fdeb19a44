/**
 * @module The sliding-log Lua: the seed's sorted set of request times (ZREMRANGEBYSCORE, ZCARD,
 * ZADD, PEXPIRE). A request at `t` counts for the window (t - window, t]. Every admitted unit gets
 * its own member, `<now>:<n>` with n counting the members already at `now` (two requests in the
 * same ms are two requests; no random id, so the script stays deterministic). Refused requests
 * are never added.
 */
import { assembleOneRuleScript } from "../assemble-script.ts";

/**
 * Registers `ALGORITHMS.sliding`; KEYS: the client's sorted set (score = request time, ms). A
 * refused request that could fit waits for the member at `rank`, and those before it, to leave
 * the window; the set expires when its newest member leaves.
 */
export const lua = `
ALGORITHMS["sliding"] = { keys = 1, check = function(keys, now, cost, limit, window_ms)
  local key = keys[1] -- sorted set of admitted requests, score in ms
  redis.call("ZREMRANGEBYSCORE", key, "-inf", now - window_ms) -- out of (now - window, now]
  local count = redis.call("ZCARD", key) -- requests in the window, requests
  local newest = redis.call("ZRANGE", key, -1, -1, "WITHSCORES")[2] -- latest request, ms
  local reset_at = newest and tonumber(newest) + window_ms or now -- when the log is empty, ms
  local retry_ms = reset_at - now
  if count + cost > limit and cost <= limit then
    local rank = count + cost - limit - 1
    retry_ms = tonumber(redis.call("ZRANGE", key, rank, rank, "WITHSCORES")[2]) + window_ms - now
  end
  return {
    ok = count + cost <= limit,
    retry_ms = retry_ms,
    remaining = limit - count,
    reset_at = reset_at,
    charged_remaining = limit - count - cost,
    charged_reset_at = math.max(reset_at, now + window_ms),
    charge = function()
      local seen = redis.call("ZCOUNT", key, now, now) -- members already at this ms
      for n = seen + 1, seen + cost do
        redis.call("ZADD", key, now, string.format("%d:%d", now, n))
      end
      redis.call("PEXPIRE", key, math.max(reset_at, now + window_ms) - now + TTL_GRACE_MS)
    end,
  }
end }
`;

/** The single-rule sliding-log script. */
export const source = assembleOneRuleScript(lua);
/** SHA1 of {@link source}, pinned; `npm run hash-scripts` prints a fresh one after an edit. */
export const sha1 = "434add99bae6791187fe585a75d8ea9f830766c1";
