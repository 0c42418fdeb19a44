/**
 * @module Small rules per algorithm, shared by the Redis tests: limits low enough that a short
 * trace crosses them, windows that divide {@link T0} so window edges fall on round numbers.
 */
import { algorithmNames } from "../../../src/limiter/index.ts";
import type { AlgorithmName, Rule } from "../../../src/limiter/types.ts";

/** Every algorithm the registry has (src/limiter/index.test.ts pins the list). */
export const ALGORITHMS = algorithmNames;

/** One rule of `algorithm`: 4 per second (token-bucket: burst 6). */
export function smallRule(algorithm: AlgorithmName, overrides: Partial<Rule> = {}): Rule {
  return { name: "default", algorithm, limit: 4, windowMs: 1_000, ...(algorithm === "token-bucket" ? { burst: 6 } : {}), ...overrides };
}

/** A route with one rule of every algorithm, of different sizes. */
export const MIXED_RULES: Rule[] = [
  { name: "second", algorithm: "fixed-window", limit: 5, windowMs: 1_000 },
  { name: "log", algorithm: "sliding-log", limit: 8, windowMs: 3_000 },
  { name: "buckets", algorithm: "sliding-window", limit: 10, windowMs: 4_000, buckets: 4 },
  { name: "weighted", algorithm: "sliding-window-approx", limit: 12, windowMs: 5_000 },
  { name: "bucket", algorithm: "token-bucket", limit: 3, windowMs: 1_000, burst: 4 },
];
