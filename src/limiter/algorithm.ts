/**
 * @module What every algorithm provides: its Lua fragment and single-rule script, its keys, and
 * the TypeScript model of the same check (the in-memory store and the oracle of the differential
 * test). ./catalog.ts maps names to the specs (what the Worker bundles), ./registry.ts to the
 * algorithms with their models.
 */
import type { LimiterScript } from "./assemble-script.ts";
import type { ModelStore } from "./memory/model-store.ts";
import type { AlgorithmName } from "./types.ts";

/** A rule's numbers as the scripts receive them. */
export interface RuleParams {
  /** Requests per window. */
  limit: number;
  /** Window length, ms. */
  windowMs: number;
  /** Requests at once; only `token-bucket` reads it, the others get `limit`. */
  burst: number;
  /** Sub-windows per window; only `sliding-window` reads it, the others get 1. */
  buckets: number;
}

/**
 * One rule's check, as the Lua `check` returns it (./assemble-script.ts): both outcomes, and the
 * write that charges the request, run only when every rule of the route admitted it.
 */
export interface RuleCheck {
  ok: boolean;
  /** ms until this rule could admit this cost; meaningful only when `ok` is false. */
  retryMs: number;
  /** Requests still allowed if nothing is charged. */
  remaining: number;
  /** ms since the epoch when the quota is full again, if nothing is charged. */
  resetAt: number;
  chargedRemaining: number;
  chargedResetAt: number;
  charge(): void;
}

/**
 * What the Worker needs of an algorithm: its Lua, its keys and its rule checks. The TypeScript
 * model is kept apart ({@link Algorithm}), so that it never enters the Worker's bundle.
 */
export interface AlgorithmSpec {
  readonly name: AlgorithmName;
  /** Short tag: the key segment after the prefix, and the Lua dispatch name. */
  readonly tag: string;
  /** This algorithm alone: what a single-rule route sends. */
  readonly script: LimiterScript;
  /** The Lua fragment that registers `ALGORITHMS[tag]`, for the multi-rule script. */
  readonly lua: string;
  /** The keys of one rule, from the rule's base key (src/keys/build-key.ts), its numbers and `now`. */
  keys(baseKey: string, rule: RuleParams, now: number): string[];
  /** Set when the algorithm reads `buckets`: the value a rule without one gets. */
  readonly defaultBuckets?: number;
  /** Why a rule's numbers cannot work with this algorithm (beyond the checks every rule gets), or undefined. */
  refuses?(rule: RuleParams): string | undefined;
}

/** An algorithm: Lua for Redis and a mirror-image TypeScript model of the same arithmetic. */
export interface Algorithm extends AlgorithmSpec {
  /** The model: the same check as the Lua, over an in-memory store. */
  check(store: ModelStore, keys: string[], now: number, cost: number, rule: RuleParams): RuleCheck;
}
