/**
 * @module Every limiter script by name: for `npm run hash-scripts` and the pinned-SHA1 test.
 */
import type { LimiterScript } from "./assemble-script";
import * as fixedWindow from "./fixed-window/script";
import * as multiRule from "./multi-rule/script";
import * as slidingLog from "./sliding-log/script";
import * as slidingWindow from "./sliding-window/script";
import * as tokenBucket from "./token-bucket/script";

/** Each script the limiter can send, by the folder it lives in. */
export const limiterScripts: Readonly<Record<string, LimiterScript>> = {
  "fixed-window": fixedWindow,
  "sliding-log": slidingLog,
  "sliding-window": slidingWindow,
  "token-bucket": tokenBucket,
  "multi-rule": multiRule,
};
