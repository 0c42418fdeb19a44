/**
 * @module The limiter's public surface: the registry of algorithms, `createLimiter` (Redis) and
 * `createMemoryLimiter` (one isolate), and the contract types.
 */
export { algorithmNames, algorithms, isAlgorithmName } from "./registry";
export { createLimiter, type LimiterDeps } from "./create-limiter";
export { createMemoryLimiter, type MemoryLimiterOptions } from "./memory/memory-limiter";
export { ModelStore } from "./memory/model-store";
export type * from "./types";
