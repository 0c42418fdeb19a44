/**
 * @module The scripts that write a client's entries (its list entry and its tier), which the
 * limiter scripts read in the same call as the decision. Scripts rather than plain commands, so
 * that the limiter's one transport (`ScriptRunner`: EVALSHA, EVAL) serves them too.
 */

/** KEYS[1] = the entry; ARGV: the value, then its TTL in ms ("" for none). SET replaces any TTL. */
export const setEntry = {
  source: `#!lua flags=allow-key-locking
if ARGV[2] == "" then return redis.call("SET", KEYS[1], ARGV[1]) end
return redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
`,
  /** SHA1 of the source, pinned; `npm run hash-scripts` prints a fresh one after an edit. */
  sha1: "20330b2667768131d7cad7e64402c732d9296c1c",
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
