/**
 * @module The algorithm registry: the names `RATE_LIMIT_ALGORITHM` and `ROUTES[].rules[].algorithm`
 * accept, each mapped to its implementation. The config parser validates against this same map.
 */
import type { Algorithm } from "./algorithm.ts";
import { fixedWindow } from "./fixed-window/index.ts";
import { slidingLog } from "./sliding-log/index.ts";
import { slidingWindow } from "./sliding-window/index.ts";
import { slidingWindowApprox } from "./sliding-window-approx/index.ts";
import { tokenBucket } from "./token-bucket/index.ts";
import type { AlgorithmName } from "./types.ts";

/**
 * Every algorithm by name.
 *
 * @example
 * Object.keys(algorithms) // ["fixed-window", "sliding-log", "sliding-window", "sliding-window-approx", "token-bucket"]
 */
export const algorithms: Readonly<Record<AlgorithmName, Algorithm>> = {
  "fixed-window": fixedWindow,
  "sliding-log": slidingLog,
  "sliding-window": slidingWindow,
  "sliding-window-approx": slidingWindowApprox,
  "token-bucket": tokenBucket,
};

/** The algorithm names, in the registry's order (for messages like `expected one of …`). */
export const algorithmNames = Object.keys(algorithms) as readonly AlgorithmName[];

/**
 * True when `name` is an algorithm's name.
 *
 * @example
 * isAlgorithmName("sliding-log") // true
 * isAlgorithmName("leaky-bucket") // false
 */
export function isAlgorithmName(name: string): name is AlgorithmName {
  return Object.hasOwn(algorithms, name);
}

/** The algorithm named `name`, or undefined. */
export function algorithmByName(name: string): Algorithm | undefined {
  return isAlgorithmName(name) ? algorithms[name] : undefined;
}
