/**
 * @module `fixed-window`: one counter per window.
 *
 * - Keeps: one integer per client and window, key `…:<window index>`, expiring when the window ends.
 * - Pro: O(1) memory and the cheapest script (GET, INCRBY, PEXPIRE once per window).
 * - Con: exact per window, but admits up to 2× the limit across a window edge (a burst at the end
 *   of one window and another at the start of the next).
 */
import type { AlgorithmSpec } from "../algorithm.ts";
import { lua, sha1, source } from "./script.ts";

/**
 * The fixed-window algorithm for the catalog in ../catalog.ts.
 *
 * @example
 * createLimiter([{ name: "default", algorithm: "fixed-window", limit: 100, windowMs: 60_000 }], deps)
 */
export const fixedWindow: AlgorithmSpec = {
  name: "fixed-window",
  tag: "fixed",
  script: { source, sha1 },
  lua,
  keys: (baseKey, { windowMs }, now) => [`${baseKey}:${Math.floor(now / windowMs)}`],
};
