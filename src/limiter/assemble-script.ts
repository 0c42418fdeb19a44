/**
 * @module Assembles a limiter script from algorithm fragments. Every script, single-rule or
 * multi-rule, has the same shape and the same KEYS/ARGV layout, so one argument builder and one
 * reply parser serve them all (see ./reply.ts):
 *
 * - ARGV: `now` (ms since the epoch), `cost` (units), then five per rule: algorithm tag, limit
 *   (requests), window (ms), burst (requests; token-bucket only, else = limit), buckets (sub-windows;
 *   sliding-window only, else 1).
 * - KEYS: each rule's keys in rule order (one per rule; two for `sliding-window-approx`).
 * - Reply: `allowed` (1|0), then four per rule: ok (1|0), remaining (requests), reset at (ms since
 *   the epoch), retry in (ms; 0 unless this rule refused).
 *
 * Each fragment registers `ALGORITHMS[<tag>] = { keys = n, check = function(keys, now, cost,
 * limit, window_ms, burst, buckets) }`. `check` only reads (and trims what has already expired); it
 * returns the outcome both uncharged and charged, and a `charge` function that writes. The main
 * part checks every rule, then charges every rule only if all admitted: all-or-nothing inside one
 * atomic script (design.md, "The algorithms").
 */

/** A script with its SHA1 pinned; a test compares `sha1` with Redis's `SCRIPT LOAD`. */
export interface LimiterScript {
  /** The exact Lua text, shebang included (Upstash hashes the full text). */
  readonly source: string;
  /** Lowercase hex SHA1 of `source`: what EVALSHA sends. */
  readonly sha1: string;
}

/**
 * Added to every TTL, in ms. TTLs are computed from the Worker's `now`; a Worker whose clock lags
 * by up to this much must still find a window's counter rather than start it afresh. A key that
 * outlives its window is never read again (window index in the key, scores, TAT), so the grace
 * costs memory for a second, never a different decision.
 */
export const TTL_GRACE_MS = 1_000;

const header = `#!lua flags=allow-key-locking
local ALGORITHMS = {}
local TTL_GRACE_MS = ${TTL_GRACE_MS} -- added to every TTL: tolerates Workers' clocks lagging, ms
`;

const checkEveryRule = `
local now = tonumber(ARGV[1]) -- ms since the epoch, from the Worker's clock
local cost = tonumber(ARGV[2]) -- units this request costs, integer >= 1

local checks = {}
local allowed = true
local key_at = 1 -- index in KEYS of the next rule's first key
for arg_at = 3, #ARGV, 5 do
  local algorithm = ALGORITHMS[ARGV[arg_at]]
  local limit = tonumber(ARGV[arg_at + 1]) -- requests per window
  local window_ms = tonumber(ARGV[arg_at + 2]) -- ms
  local burst = tonumber(ARGV[arg_at + 3]) -- requests at once (token-bucket)
  local buckets = tonumber(ARGV[arg_at + 4]) -- sub-windows per window (sliding-window)
  local keys = {}
  for i = 1, algorithm.keys do keys[i] = KEYS[key_at + i - 1] end
  key_at = key_at + algorithm.keys
  local check = algorithm.check(keys, now, cost, limit, window_ms, burst, buckets)
  allowed = allowed and check.ok
  checks[#checks + 1] = check
end

`;

const decideTail = `local reply = { allowed and 1 or 0 }
for _, check in ipairs(checks) do
  if allowed then
    check.charge()
    reply[#reply + 1] = 1
    reply[#reply + 1] = math.max(check.charged_remaining, 0)
    reply[#reply + 1] = check.charged_reset_at
    reply[#reply + 1] = 0
  else
    reply[#reply + 1] = check.ok and 1 or 0
    reply[#reply + 1] = math.max(check.remaining, 0)
    reply[#reply + 1] = check.reset_at
    reply[#reply + 1] = check.ok and 0 or check.retry_ms
  end
end
return reply
`;

/** Reports every rule's outcome as if nothing were charged: same reply layout, no write. */
const statusTail = `local reply = { allowed and 1 or 0 }
for _, check in ipairs(checks) do
  reply[#reply + 1] = check.ok and 1 or 0
  reply[#reply + 1] = math.max(check.remaining, 0)
  reply[#reply + 1] = check.reset_at
  reply[#reply + 1] = check.ok and 0 or check.retry_ms
end
return reply
`;

/**
 * Joins the shebang, the fragments and the main part. Deterministic: the same fragments always
 * give the same text, so the SHA1 pinned beside each script stays valid.
 *
 * @example
 * export const source = assembleScript([fixedWindowLua]);
 */
export function assembleScript(fragments: readonly string[]): string {
  return header + fragments.join("") + checkEveryRule + decideTail;
}

/**
 * The read-only twin of {@link assembleScript}: the same checks and reply, but nothing is charged
 * and no TTL moves (a check only reads, and trims entries already outside its window). The admin
 * API's `status` sends it, so looking at a client's quota never spends any.
 *
 * @example
 * export const source = assembleStatusScript(Object.values(algorithms).map((a) => a.lua));
 */
export function assembleStatusScript(fragments: readonly string[]): string {
  return header + fragments.join("") + checkEveryRule + statusTail;
}
