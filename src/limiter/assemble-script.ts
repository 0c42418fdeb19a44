/**
 * @module Assembles a limiter script from algorithm fragments. Every script, single-rule or
 * multi-rule, has the same shape and the same KEYS/ARGV layout, so one argument builder and one
 * reply parser serve them all (see ./plan.ts and ./reply.ts):
 *
 * - ARGV: `now` (ms since the epoch), `cost` (units), the default tier (`""` for a route without
 *   tiers), then one group of rules per tier (one group, named `""`, without tiers): the group's
 *   name, its number of rules, then five per rule: algorithm tag, limit (requests), window (ms),
 *   burst (requests; token-bucket only, else = limit), buckets (sub-windows; sliding-window only,
 *   else 1).
 * - KEYS: the client's list entry (`allow` or `deny`, set through the admin API; on a route whose
 *   rules count different clients, one per distinct client; none for a limiter without lists;
 *   counted as what KEYS holds beyond the rules' keys and the tier), then, with tiers, the
 *   client's tier; then every group's rule keys in order (one per rule; two for
 *   `sliding-window-approx`). All carry one hash tag (the client's,
 *   or the route's), so they share one Redis Cluster slot.
 * - Reply: verdict (0 refused, 1 allowed, 2 denied by the list, 3 allowed by the list), the
 *   deciding group's number (1-based), the list entry's TTL (ms; -1 without one, 0 unlisted),
 *   then four per rule of that group: ok (1|0), remaining (requests), reset at (ms since the
 *   epoch), retry in (ms; 0 unless this rule refused). A listed client's decision has no rules.
 *
 * Each algorithm's own script, sent for a policy of one rule, has a shorter main part for that
 * case (no walk over groups, the tier never read); the multi-rule script has the general one.
 *
 * Each fragment registers `ALGORITHMS[<tag>] = { keys = n, check = function(keys, now, cost,
 * limit, window_ms, burst, buckets) }`. `check` only reads (and trims what has already expired); it
 * returns the outcome both uncharged and charged, and a `charge` function that writes. The main
 * part reads the list entry and the tier, checks every rule of the client's tier, then charges
 * every one only if all admitted: all-or-nothing inside one atomic script, one round trip.
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

/**
 * Reads the client's list entries, the first `lists` KEYS, into `listed` and `list_ttl`: one entry
 * per distinct client of the request (one when every rule counts the same client). Deny on any
 * beats allow on any; of several entries of the deciding kind, the longest TTL counts (-1: one
 * never expires).
 */
const readLists = `
local listed = false -- "allow", "deny", or false
local list_ttl = 0 -- ms; -1 when the entry never expires
for i = 1, lists do
  local entry = redis.call("GET", KEYS[i])
  if entry == "deny" or (entry == "allow" and listed ~= "deny") then
    local ttl = redis.call("PTTL", KEYS[i])
    if entry ~= listed then
      listed, list_ttl = entry, ttl
    elseif list_ttl ~= -1 and (ttl == -1 or ttl > list_ttl) then
      list_ttl = ttl
    end
  end
end
`;

/**
 * The main part of a script for one rule (one group of one rule: ARGV[6..10]), the commonest
 * route. The same layout and reply as the general part below, without its walk over groups and
 * tiers: with one group, the client's tier cannot change which rules apply, so its key is never
 * read. In Redis this costs about a fifth less per call (docs/performance.md, entry 10). KEYS
 * are the list entries, then the tier's key when the route has tiers, then the rule's keys.
 */
const decideOneRule = `
local now = tonumber(ARGV[1]) -- ms since the epoch, from the Worker's clock
local cost = tonumber(ARGV[2]) -- units this request costs, integer >= 1
local algorithm = ALGORITHMS[ARGV[6]]
local before_rule = #KEYS - algorithm.keys
local lists = before_rule - (ARGV[3] ~= "" and 1 or 0)
${readLists}
if listed == "deny" then return { 2, 1, list_ttl } end
if listed == "allow" then return { 3, 1, list_ttl } end
local keys = {}
for i = 1, algorithm.keys do keys[i] = KEYS[before_rule + i] end
local check = algorithm.check(keys, now, cost, tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10]))
if not check.ok then return { 0, 1, 0, 0, math.max(check.remaining, 0), check.reset_at, check.retry_ms } end
check.charge()
return { 1, 1, 0, 1, math.max(check.charged_remaining, 0), check.charged_reset_at, 0 }
`;

/**
 * The general main part's checks: walks every group (their keys come in order, after the list
 * entries and the tier), reads the list entries, picks the client's tier (else the default), and
 * defines `check_group`, which checks one group's rules, and `uncharged`, which adds a check's
 * outcome to the reply without charging it.
 */
const checkEveryRule = `
local now = tonumber(ARGV[1]) -- ms since the epoch, from the Worker's clock
local cost = tonumber(ARGV[2]) -- units this request costs, integer >= 1
local default_tier = ARGV[3] -- "" when the route has no tiers

local groups = {}
local rule_keys = 0 -- how many KEYS the rules take
local arg_at = 4
while arg_at <= #ARGV do
  local count = tonumber(ARGV[arg_at + 1]) -- rules in this group
  groups[#groups + 1] = { name = ARGV[arg_at], first_arg = arg_at + 2, count = count, first_key = rule_keys }
  for rule = 0, count - 1 do rule_keys = rule_keys + ALGORITHMS[ARGV[arg_at + 2 + 5 * rule]].keys end
  arg_at = arg_at + 2 + 5 * count
end

local tiered = default_tier ~= "" and 1 or 0
local lists = #KEYS - rule_keys - tiered
${readLists}
local tier = default_tier
if tiered == 1 then tier = redis.call("GET", KEYS[lists + 1]) or default_tier end
local chosen = 1
for i, group in ipairs(groups) do
  group.first_key = group.first_key + lists + tiered + 1
  if group.name == tier or (group.name == default_tier and groups[chosen].name ~= tier) then chosen = i end
end

local function check_group(group)
  local checks = {}
  local allowed = true
  local at = group.first_key
  for rule = 0, group.count - 1 do
    local a = group.first_arg + 5 * rule
    local algorithm = ALGORITHMS[ARGV[a]]
    local limit = tonumber(ARGV[a + 1]) -- requests per window
    local window_ms = tonumber(ARGV[a + 2]) -- ms
    local burst = tonumber(ARGV[a + 3]) -- requests at once (token-bucket)
    local buckets = tonumber(ARGV[a + 4]) -- sub-windows per window (sliding-window)
    local keys = {}
    for i = 1, algorithm.keys do keys[i] = KEYS[at + i - 1] end
    at = at + algorithm.keys
    local check = algorithm.check(keys, now, cost, limit, window_ms, burst, buckets)
    allowed = allowed and check.ok
    checks[#checks + 1] = check
  end
  return checks, allowed
end

local function uncharged(reply, check)
  reply[#reply + 1] = check.ok and 1 or 0
  reply[#reply + 1] = math.max(check.remaining, 0)
  reply[#reply + 1] = check.reset_at
  reply[#reply + 1] = check.ok and 0 or check.retry_ms
end
`;

/** Decides and charges: a listed client by its entry alone (nothing read or charged), anyone else by its group's rules, all or nothing. */
const decideTail = `
if listed == "deny" then return { 2, chosen, list_ttl } end
if listed == "allow" then return { 3, chosen, list_ttl } end
local checks, allowed = check_group(groups[chosen])
local reply = { allowed and 1 or 0, chosen, 0 }
for _, check in ipairs(checks) do
  if allowed then
    check.charge()
    reply[#reply + 1] = 1
    reply[#reply + 1] = math.max(check.charged_remaining, 0)
    reply[#reply + 1] = check.charged_reset_at
    reply[#reply + 1] = 0
  else
    uncharged(reply, check)
  end
end
return reply
`;

/** Reports the list entry, the tier and every rule's outcome as if nothing were charged: no write. */
const statusTail = `
local checks, allowed = check_group(groups[chosen])
local verdict = allowed and 1 or 0
if listed == "deny" then verdict = 2 elseif listed == "allow" then verdict = 3 end
local reply = { verdict, chosen, list_ttl }
for _, check in ipairs(checks) do uncharged(reply, check) end
return reply
`;

/**
 * Joins the shebang, the fragments and the main part. Deterministic: the same fragments always
 * give the same text, so the SHA1 pinned beside each script stays valid.
 *
 * @example
 * export const source = assembleScript([fixedWindowLua, slidingLogLua]);
 */
export function assembleScript(fragments: readonly string[]): string {
  return header + fragments.join("") + checkEveryRule + decideTail;
}

/**
 * The script of one algorithm for one rule: {@link assembleScript}'s layout and reply, for ARGV
 * holding one group of one rule (with or without a tier), as ./plan.ts sends it for such a policy.
 *
 * @example
 * export const source = assembleOneRuleScript(fixedWindowLua);
 */
export function assembleOneRuleScript(fragment: string): string {
  return header + fragment + decideOneRule;
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
