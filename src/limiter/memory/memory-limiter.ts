/**
 * @module The in-memory limiter: the TypeScript model of every algorithm behind the same
 * {@link Limiter} interface, for a single instance (the seed's note: one instance needs no Redis).
 * It is also the oracle of the differential test against the Lua on Redis.
 */
import type { RuleCheck } from "../algorithm";
import { compilePlan } from "../plan";
import { parseReply } from "../reply";
import type { Limiter, LimitRequest, Rule } from "../types";
import { ModelStore } from "./model-store";

/** Options of {@link createMemoryLimiter}. */
export interface MemoryLimiterOptions {
  /** Key prefix, as for Redis; only matters when limiters share a `store`. @default "rate" */
  prefix?: string;
  /** Where counters live; pass one to share it between limiters of one isolate. @default a new one */
  store?: ModelStore;
}

const SWEEP_EVERY = 1_000;

/**
 * A limiter whose counters live in this isolate's memory. NOT shared between isolates: on
 * Cloudflare each isolate (and each location) would count on its own, so a client could get the
 * limit once per isolate. Use it for one process (a Node server, tests, local development), and
 * {@link createLimiter} with Redis for a Worker. Decisions are identical to the Redis scripts',
 * given the same sequence of requests (the differential test checks this).
 *
 * @example
 * const limiter = createMemoryLimiter([{ name: "default", algorithm: "sliding-log", limit: 5, windowMs: 60_000 }]);
 * const decision = await limiter.limit({ client: "203.0.113.7", scope: "", now: Date.now() });
 */
export function createMemoryLimiter(rules: Rule[], { prefix = "rate", store = new ModelStore() }: MemoryLimiterOptions = {}): Limiter {
  const plan = compilePlan(rules);
  let calls = 0;
  return {
    rules: plan.rules,
    async limit(request) {
      if (++calls % SWEEP_EVERY === 0) store.sweep(request.now);
      return parseReply(decide(check(request)), plan.rules, request.now);
    },
    async status(request) {
      return parseReply(report(check(request)), plan.rules, request.now);
    },
    async reset(request) {
      const keys = plan.keys(request, prefix).flat();
      const existing = keys.filter((key) => store.get(key, request.now) !== undefined);
      for (const key of existing) store.delete(key);
      return existing.length;
    },
  };

  function check(request: LimitRequest): RuleCheck[] {
    const keys = plan.keys(request, prefix);
    const cost = request.cost ?? 1;
    return plan.algorithms.map((algorithm, i) => algorithm.check(store, keys[i]!, request.now, cost, plan.params[i]!));
  }
}

/** The main part of every limiter script (../assemble-script.ts), in TypeScript: the same reply. */
function decide(checks: RuleCheck[]): number[] {
  const allowed = checks.every((check) => check.ok);
  const reply = [allowed ? 1 : 0];
  for (const check of checks) {
    if (allowed) {
      check.charge();
      reply.push(1, Math.max(check.chargedRemaining, 0), check.chargedResetAt, 0);
    } else {
      reply.push(...uncharged(check));
    }
  }
  return reply;
}

/** The status script's main part (../assemble-script.ts), in TypeScript: every outcome, nothing charged. */
function report(checks: RuleCheck[]): number[] {
  return [checks.every((check) => check.ok) ? 1 : 0, ...checks.flatMap(uncharged)];
}

function uncharged(check: RuleCheck): number[] {
  return [check.ok ? 1 : 0, Math.max(check.remaining, 0), check.resetAt, check.ok ? 0 : check.retryMs];
}
