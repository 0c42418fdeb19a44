/**
 * @module `token-bucket`: GCRA (the generic cell rate algorithm), one timestamp per client.
 *
 * A rule `<limit>/<window>` refills one token every window / limit ms, up to `burst` tokens
 * (default: `limit`). A request of cost n is admitted when the theoretical arrival time, moved on
 * by n emission intervals, is at most `burst` intervals ahead of now.
 *
 * - Keeps: one string per client (`<ms>:<ticks>`), expiring once the bucket is full again. O(1).
 * - Pro: exact smooth rate with a burst allowance; no window edge at all.
 * - Con: `remaining` refills gradually, so "reset" is when the bucket is full, not a window edge.
 */
import type { AlgorithmSpec } from "../algorithm.ts";
import { lua, sha1, source } from "./script.ts";

/**
 * The token-bucket algorithm for the catalog in ../catalog.ts.
 *
 * @example
 * createLimiter([{ name: "api", algorithm: "token-bucket", limit: 10, windowMs: 1_000, burst: 20 }], deps)
 */
export const tokenBucket: AlgorithmSpec = {
  name: "token-bucket",
  tag: "gcra",
  script: { source, sha1 },
  lua,
  keys: (baseKey) => [baseKey],
};
