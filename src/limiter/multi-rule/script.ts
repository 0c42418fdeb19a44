/**
 * @module The multi-rule script: every algorithm's fragment behind one dispatcher, so a route's
 * rules, whatever their mix, are decided in one atomic call (check all, then charge all). One
 * script for every mix keeps one SHA1 cached, rather than a script per combination.
 */
import { assembleScript } from "../assemble-script.ts";
import { lua as fixedWindow } from "../fixed-window/script.ts";
import { lua as slidingLog } from "../sliding-log/script.ts";
import { lua as slidingWindow } from "../sliding-window/script.ts";
import { lua as slidingWindowApprox } from "../sliding-window-approx/script.ts";
import { lua as tokenBucket } from "../token-bucket/script.ts";

/** Every algorithm, dispatched per rule on its tag (ARGV). */
export const source = assembleScript([fixedWindow, slidingLog, slidingWindow, slidingWindowApprox, tokenBucket]);
/** SHA1 of {@link source}, pinned; `npm run hash-scripts` prints a fresh one after an edit. */
export const sha1 = "2ed7aa4bf5da87afda50c1976367ac4de8ac66f3";
