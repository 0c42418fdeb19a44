/**
 * @module `sliding-window-approx`: the two-counter weighted approximation (as Cloudflare and
 * upstash do). It was `sliding-window` until the bucketed, conservative ../sliding-window took the
 * name; it keeps its `weighted` keys, whose format and meaning did not change.
 *
 * A request at `now`, `e` ms into window `w`, is admitted when
 * `previous × (window − e) / window + current + cost ≤ limit`.
 *
 * Error bound: the estimate assumes the previous window's requests were spread evenly. The true
 * number of admitted requests in the sliding window (now − window, now] is `current + p`, where
 * `p` (0 ≤ p ≤ previous) is how many of the previous window's requests fall inside it, so
 * |estimate − true count| ≤ previous × max(e, window − e) / window ≤ previous ≤ limit. Hence in any
 * window of the given length it admits at most 2 × limit − 1 requests (all of the previous
 * window's at its very end, then the current window's), never more; and it may refuse early, at
 * worst when the previous window's requests all came at its start. On evenly spread traffic the
 * error is small; on realistic traffic it is not, because an over-limit client's admissions bunch
 * where quota frees up: the bench's trace section measures it (bench/README.md, "Accuracy on long
 * traces").
 *
 * - Keeps: two integers per client (this window's and the previous one's), O(1).
 * - Pro: smooths fixed-window's 2× burst at the edge for the memory of a counter.
 * - Con: an approximation; not for limits that must never be exceeded.
 */
import type { AlgorithmSpec } from "../algorithm.ts";
import { lua, sha1, source } from "./script.ts";

/**
 * The two-counter sliding-window approximation for the catalog in ../catalog.ts.
 *
 * @example
 * createLimiter([{ name: "api", algorithm: "sliding-window-approx", limit: 1_000, windowMs: 60_000 }], deps)
 */
export const slidingWindowApprox: AlgorithmSpec = {
  name: "sliding-window-approx",
  tag: "weighted",
  script: { source, sha1 },
  lua,
  keys: (baseKey, { windowMs }, now) => {
    const index = Math.floor(now / windowMs);
    return [`${baseKey}:${index}`, `${baseKey}:${index - 1}`];
  },
};
