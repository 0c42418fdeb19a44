/**
 * @module The algorithm catalog: the names `RATE_LIMIT_ALGORITHM` and `ROUTES[].rules[].algorithm`
 * accept, each mapped to what the Worker needs of it (its Lua, keys and rule checks). The config
 * parser validates against this same map. The TypeScript models are added in ./registry.ts, which
 * nothing on the Worker's path imports, so they stay out of its bundle.
 */
import type { AlgorithmSpec } from "./algorithm.ts";
import { fixedWindow } from "./fixed-window/index.ts";
import { slidingLog } from "./sliding-log/index.ts";
import { slidingWindow } from "./sliding-window/index.ts";
import { slidingWindowApprox } from "./sliding-window-approx/index.ts";
import { tokenBucket } from "./token-bucket/index.ts";
import type { AlgorithmName } from "./types.ts";

/**
 * Every algorithm's spec by name.
 *
 * @example
 * Object.keys(algorithmSpecs) // ["fixed-window", "sliding-log", "sliding-window", "sliding-window-approx", "token-bucket"]
 */
export const algorithmSpecs: Readonly<Record<AlgorithmName, AlgorithmSpec>> = {
  "fixed-window": fixedWindow,
  "sliding-log": slidingLog,
  "sliding-window": slidingWindow,
  "sliding-window-approx": slidingWindowApprox,
  "token-bucket": tokenBucket,
};

/** The algorithm names, in the catalog's order (for messages like `expected one of …`). */
export const algorithmNames = Object.keys(algorithmSpecs) as readonly AlgorithmName[];

/**
 * True when `name` is an algorithm's name.
 *
 * @example
 * isAlgorithmName("sliding-log") // true
 * isAlgorithmName("leaky-bucket") // false
 */
export function isAlgorithmName(name: string): name is AlgorithmName {
  return Object.hasOwn(algorithmSpecs, name);
}

/** The spec of the algorithm named `name`, or undefined. */
export function algorithmByName(name: string): AlgorithmSpec | undefined {
  return isAlgorithmName(name) ? algorithmSpecs[name] : undefined;
}
