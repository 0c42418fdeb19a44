/**
 * @module The limiter's public surface: the registry of algorithms, `createLimiter` (Redis) and
 * `createMemoryLimiter` (one isolate), the client entries (lists, tiers), and the contract types.
 */
export { algorithmNames, algorithms, isAlgorithmName } from "./registry.ts";
export { createLimiter, type LimiterDeps } from "./create-limiter.ts";
export { createMemoryLimiter, type MemoryLimiterOptions } from "./memory/memory-limiter.ts";
export { createClientEntries, type ClientEntries, type ListKind } from "./entries/index.ts";
export type { Policy, TieredRules } from "./plan.ts";
export { ModelStore } from "./memory/model-store.ts";
export type * from "./types.ts";
