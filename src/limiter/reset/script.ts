/**
 * @module The reset script: deletes the keys of one client's rules and answers how many existed.
 * The keys share the client's hash tag (src/keys/build-key.ts), so one DEL is valid on a cluster.
 */

/** DEL of every key given; the reply is the number of keys that existed. */
export const source = `#!lua flags=allow-key-locking
return redis.call("DEL", unpack(KEYS))
`;
/** SHA1 of {@link source}, pinned; `npm run hash-scripts` prints a fresh one after an edit. */
export const sha1 = "d4289abf6eb79d9b5a37ff6d84fa71107cb1cb7d";
