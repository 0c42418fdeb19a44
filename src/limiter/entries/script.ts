/**
 * @module The scripts that write a client's entries (its list entry and its tier), which the
 * limiter scripts read in the same call as the decision. Scripts rather than plain commands, so
 * that the limiter's one transport (`ScriptRunner`: EVALSHA, EVAL) serves them too.
 */

/**
 * KEYS[1] = the entry; ARGV: the value, then its TTL in ms ("" for none). SET replaces any TTL.
 * Replies the value it replaced, "" for none (GET first: `SET … GET` needs Redis 6.2).
 */
export const setEntry = {
  source: `#!lua flags=allow-key-locking
local old = redis.call("GET", KEYS[1]) or ""
if ARGV[2] == "" then redis.call("SET", KEYS[1], ARGV[1]) else redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2]) end
return old
`,
  /** SHA1 of the source, pinned; `npm run hash-scripts` prints a fresh one after an edit. */
  sha1: "8ff06f752c4b34ad67fdf6643c231651fcd19ed8",
};

/** KEYS[1] = the entry; ARGV[1]: delete it only if it holds this value ("" for any). Replies 1 or 0. */
export const deleteEntry = {
  source: `#!lua flags=allow-key-locking
if ARGV[1] ~= "" and redis.call("GET", KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call("DEL", KEYS[1])
`,
  /** SHA1 of the source, pinned; `npm run hash-scripts` prints a fresh one after an edit. */
  sha1: "a1357ef10074118ba20340f7ade3c2c09f9d5fb3",
};

/**
 * KEYS[1] = the client's copy of its entry on a multi-key route; ARGV: the value, then its TTL in ms
 * ("" for none). Writes only a missing copy (NX): a copy that exists was written by the admin API
 * with its entry, later than anything this call read. Replies 1 when written, else 0.
 */
export const setEntryIfAbsent = {
  source: `#!lua flags=allow-key-locking
if ARGV[2] == "" then return redis.call("SET", KEYS[1], ARGV[1], "NX") and 1 or 0 end
return redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2], "NX") and 1 or 0
`,
  /** SHA1 of the source, pinned; `npm run hash-scripts` prints a fresh one after an edit. */
  sha1: "bd10969fe19798db33ec975cfcdca301e68e0833",
};

/** KEYS[1] = the client's own entry. Replies {value or "", PTTL}: PTTL -1 for no TTL, -2 when absent. */
export const readEntry = {
  source: `#!lua flags=allow-key-locking
return {redis.call("GET", KEYS[1]) or "", redis.call("PTTL", KEYS[1])}
`,
  /** SHA1 of the source, pinned; `npm run hash-scripts` prints a fresh one after an edit. */
  sha1: "1d5494196e98837bb26c3186ac40bac38d7e2dd1",
};

/**
 * KEYS[1] = the index of list entries, a sorted set of `<kind>:<client>` scored by when the entry
 * expires (Redis's clock, as PX counts it; +inf for none). ARGV: the client, the kind, the TTL in ms
 * ("" for none). Drops what has expired, then the client's other entry, then adds this one: the
 * index holds at most one entry per client, and no expired ones past the last write.
 */
export const indexEntry = {
  source: `#!lua flags=allow-key-locking
local t = redis.call("TIME")
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", string.format("%.0f", now))
redis.call("ZREM", KEYS[1], "allow:" .. ARGV[1], "deny:" .. ARGV[1])
local score = ARGV[3] == "" and "+inf" or string.format("%.0f", now + tonumber(ARGV[3]))
return redis.call("ZADD", KEYS[1], score, ARGV[2] .. ":" .. ARGV[1])
`,
  /** SHA1 of the source, pinned; `npm run hash-scripts` prints a fresh one after an edit. */
  sha1: "e4c7c91571079b95d61eaa2d643b0d9f829f9742",
};

/** KEYS[1] = the index; ARGV[1]: the `<kind>:<client>` to drop. Replies 1 or 0. */
export const unindexEntry = {
  source: `#!lua flags=allow-key-locking
return redis.call("ZREM", KEYS[1], ARGV[1])
`,
  /** SHA1 of the source, pinned; `npm run hash-scripts` prints a fresh one after an edit. */
  sha1: "4a1217e091aec084dcaccf147094d2c8c80fc4b7",
};

/**
 * KEYS[1] = the index; ARGV: the expiry score ("inf" or whole ms; "" for the first page) and the
 * member of the last entry read, then how many to read. Replies {`<kind>:<client>`, ms left (-1 for
 * none), expiry score, …} for the unexpired entries after that one in the set's order (score, then
 * member bytewise), the unexpiring last. A position, not an offset: it does not move when entries
 * before it expire or are removed. The cursor's place is found by a binary search among the
 * members sharing its score, compared bytewise by `after`, as the set orders them (Lua's `<`
 * compares by locale).
 */
export const readIndex = {
  source: `#!lua flags=allow-key-locking
local t = redis.call("TIME")
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local start = redis.call("ZCOUNT", KEYS[1], "-inf", string.format("%.0f", now))
if ARGV[1] ~= "" then
  local function after(a, b)
    for i = 1, math.min(#a, #b) do
      local x, y = a:byte(i), b:byte(i)
      if x ~= y then return x > y end
    end
    return #a > #b
  end
  local score = ARGV[1] == "inf" and "+inf" or ARGV[1]
  local lo = redis.call("ZCOUNT", KEYS[1], "-inf", "(" .. score)
  local hi = lo + redis.call("ZCOUNT", KEYS[1], score, score)
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if after(redis.call("ZRANGE", KEYS[1], mid, mid)[1], ARGV[2]) then hi = mid else lo = mid + 1 end
  end
  if lo > start then start = lo end
end
local found = redis.call("ZRANGE", KEYS[1], start, start + tonumber(ARGV[3]) - 1, "WITHSCORES")
local out = {}
for i = 1, #found, 2 do
  local unexpiring = found[i + 1] == "inf"
  out[#out + 1] = found[i]
  out[#out + 1] = unexpiring and -1 or tonumber(found[i + 1]) - now
  out[#out + 1] = unexpiring and "inf" or string.format("%.0f", tonumber(found[i + 1]))
end
return out
`,
  /** SHA1 of the source, pinned; `npm run hash-scripts` prints a fresh one after an edit. */
  sha1: "0bb289090c40ad04d886e5ce1be3465ce766bdc2",
};

/**
 * KEYS[1] = the set of routes that have held copies of entries; ARGV: today's multi-key routes.
 * Adds them, then replies every route recorded: a route that has since lost its per-rule keys (or
 * its name) keeps copies that no script reads and that would apply again if it regained them.
 */
export const recordCopyRoutes = {
  source: `#!lua flags=allow-key-locking
if #ARGV > 0 then redis.call("SADD", KEYS[1], unpack(ARGV)) end
return redis.call("SMEMBERS", KEYS[1])
`,
  /** SHA1 of the source, pinned; `npm run hash-scripts` prints a fresh one after an edit. */
  sha1: "703f0b2b3759e570606ef2158fc80bf8adf59539",
};
