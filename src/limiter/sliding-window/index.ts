/**
 * @module `sliding-window`: the window cut into sub-windows ("buckets", 32 by default), each kept
 * as its count and the times of its first and last admission, packed into one string per client.
 *
 * A request at `now` is admitted when the requests counted in (now − window, now], plus its cost,
 * fit the limit. Every bucket wholly inside counts fully. The oldest one, which the window's start
 * cuts, counts fully while its first admission is inside, not at all once its last has left, and
 * all but its first in between. That count is never below the true one, so no window of the given
 * length ever holds more than `limit` admitted requests (as with `sliding-log`); it errs only by
 * refusing, for at most one bucket's worth of requests (all but two of the cut bucket's) and at
 * most one bucket's width (window / buckets) of time. A bucket of one or two requests is exact (to
 * the tick, width / 255, in which times are stored), so sparse clients are decided exactly.
 * Measured on long traces in bench/README.md ("Accuracy on long traces").
 *
 * - Keeps: one string of 6 + (buckets + 1) × (2 + count bytes) bytes per client, O(buckets): 105
 *   bytes at 32 buckets and a limit below 255, 138 below 65,535 (bench/README.md, "Redis memory per
 *   client").
 * - Pro: never over the limit, unlike `sliding-window-approx` and `fixed-window`, in constant memory.
 * - Con: a bigger script than the two counters (it reads and rewrites every bucket's record).
 */
import type { AlgorithmSpec } from "../algorithm.ts";
import { countBytes, lua, sha1, source } from "./script.ts";

/** The most buckets a rule may ask for. */
export const MAX_BUCKETS = 100;

/** Buckets per window when a rule does not say: within 0.01% of an exact log for clients under 0.8× their limit (bench). */
export const DEFAULT_BUCKETS = 32;

/**
 * The sliding-window algorithm for the catalog in ../catalog.ts.
 *
 * @example
 * createLimiter([{ name: "api", algorithm: "sliding-window", limit: 1_000, windowMs: 60_000, buckets: 32 }], deps)
 */
export const slidingWindow: AlgorithmSpec = {
  name: "sliding-window",
  tag: "buckets",
  script: { source, sha1 },
  lua,
  // The string's layout (bucket width, buckets, bytes per count) is part of the key, so that a rule
  // whose numbers change never misreads old buckets: it starts afresh.
  keys: (baseKey, { limit, windowMs, buckets }) => [`${baseKey}:${Math.ceil(windowMs / buckets)}.${buckets}.${countBytes(limit)}`],
  defaultBuckets: DEFAULT_BUCKETS,
  refuses({ limit, buckets }) {
    if (buckets < 2 || buckets > MAX_BUCKETS) return `buckets must be from 2 to ${MAX_BUCKETS}, got ${buckets}`;
    // A bucket is packed as count × 65,536 + two bytes of times: exact in a double while the count stays below 2^37.
    if (limit >= 2 ** 37) return `limit must be below 2^37 for sliding-window, got ${limit}`;
    return undefined;
  },
};
