/**
 * @module `sliding-log`: a sorted set of request times, trimmed on every call.
 *
 * - Keeps: one member per admitted request within the window (O(limit) per client).
 * - Pro: exact: never more than `limit` admitted in any window of the given length.
 * - Con: memory and CPU grow with the limit (ZREMRANGEBYSCORE is O(log n + removed)); best for
 *   small limits, e.g. logins.
 */
import type { AlgorithmSpec } from "../algorithm.ts";
import { lua, sha1, source } from "./script.ts";

/**
 * The sliding-log algorithm for the catalog in ../catalog.ts.
 *
 * @example
 * createLimiter([{ name: "login", algorithm: "sliding-log", limit: 5, windowMs: 60_000 }], deps)
 */
export const slidingLog: AlgorithmSpec = {
  name: "sliding-log",
  tag: "sliding",
  script: { source, sha1 },
  lua,
  keys: (baseKey) => [baseKey],
};
