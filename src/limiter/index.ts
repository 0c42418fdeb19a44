/**
 * @module The limiter's public surface: the registry of algorithms, `createLimiter` (Redis) and
 * `createMemoryLimiter` (one isolate), the client entries (lists, tiers), and the contract types.
 */
export { algorithmNames, algorithms, isAlgorithmName } from "./registry";
export { createLimiter, type LimiterDeps } from "./create-limiter";
export { createMemoryLimiter, type MemoryLimiterOptions } from "./memory/memory-limiter";
export { createClientEntries, type ClientEntries, type ListKind } from "./entries";
export type { Policy, TieredRules } from "./plan";
export { ModelStore } from "./memory/model-store";
export type * from "./types";
