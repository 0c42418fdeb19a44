/**
 * @module The algorithm registry: every algorithm of ./catalog.ts with its TypeScript model, for
 * the in-memory limiter, the differential test and the bench's traces. The Worker's path imports
 * ./catalog.ts instead, so that the models stay out of its bundle.
 */
import type { Algorithm } from "./algorithm.ts";
import { algorithmSpecs, isAlgorithmName } from "./catalog.ts";
import { checkFixedWindow } from "./fixed-window/model.ts";
import { checkSlidingLog } from "./sliding-log/model.ts";
import { checkSlidingWindow } from "./sliding-window/model.ts";
import { checkSlidingWindowApprox } from "./sliding-window-approx/model.ts";
import { checkTokenBucket } from "./token-bucket/model.ts";
import type { AlgorithmName } from "./types.ts";

export { algorithmNames, isAlgorithmName } from "./catalog.ts";

/**
 * Every algorithm by name, model included.
 *
 * @example
 * Object.keys(algorithms) // ["fixed-window", "sliding-log", "sliding-window", "sliding-window-approx", "token-bucket"]
 */
export const algorithms: Readonly<Record<AlgorithmName, Algorithm>> = {
  "fixed-window": { ...algorithmSpecs["fixed-window"], check: checkFixedWindow },
  "sliding-log": { ...algorithmSpecs["sliding-log"], check: checkSlidingLog },
  "sliding-window": { ...algorithmSpecs["sliding-window"], check: checkSlidingWindow },
  "sliding-window-approx": { ...algorithmSpecs["sliding-window-approx"], check: checkSlidingWindowApprox },
  "token-bucket": { ...algorithmSpecs["token-bucket"], check: checkTokenBucket },
};

/** The algorithm named `name`, model included, or undefined. */
export function algorithmByName(name: string): Algorithm | undefined {
  return isAlgorithmName(name) ? algorithms[name] : undefined;
}
