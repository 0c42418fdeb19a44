/**
 * @module The in-memory limiter: the TypeScript model of every algorithm behind the same
 * {@link Limiter} interface, for a single instance (the seed's note: one instance needs no Redis).
 * It is also the oracle of the differential test against the Lua on Redis.
 */
import type { RuleCheck } from "../algorithm.ts";
import { compilePlan, type Policy } from "../plan.ts";
import { parseReply } from "../reply.ts";
import type { Limiter, LimitRequest } from "../types.ts";
import { algorithms } from "../registry.ts";
import { ModelStore } from "./model-store.ts";

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
export function createMemoryLimiter(policy: Policy, { prefix = "rate", store = new ModelStore() }: MemoryLimiterOptions = {}): Limiter {
  const plan = compilePlan(policy);
  let calls = 0;
  return {
    rules: plan.rules,
    async limit(request) {
      if (++calls % SWEEP_EVERY === 0) store.sweep(request.now);
      return parseReply(run(request, decide), plan, request.now, request.clients);
    },
    async status(request) {
      return parseReply(run(request, report), plan, request.now, request.clients);
    },
    async reset(request, only) {
      const keys = plan.ruleKeys(request, prefix, only);
      const existing = keys.filter((key) => store.get(key, request.now) !== undefined);
      for (const key of existing) store.delete(key);
      return existing.length;
    },
  };

  /** The main part of every limiter script (../assemble-script.ts), in TypeScript, up to its tail. */
  function run(request: LimitRequest, tail: (head: Head, checks: () => RuleCheck[]) => number[]): number[] {
    const { now, cost = 1 } = request;
    const keys = plan.keys(request, prefix);
    const { listed, listTtl } = readLists(store, keys.lists, now);
    const tier = keys.tier === undefined ? plan.defaultTier : (store.get<string>(keys.tier, now) ?? plan.defaultTier);
    let chosen = plan.groups.findIndex((group) => group.name === tier);
    if (chosen < 0) chosen = plan.groups.findIndex((group) => group.name === plan.defaultTier);
    const group = plan.groups[chosen]!;
    const checks = () => group.algorithms.map((algorithm, i) => algorithms[algorithm.name].check(store, keys.groups[chosen]![i]!, now, cost, group.params[i]!));
    return tail({ listed, listTtl, chosen: chosen + 1 }, checks);
  }
}

/**
 * The list entries, as the script combines them: deny on any beats allow on any; of several
 * entries of the deciding kind, the longest TTL counts (-1: one never expires).
 */
function readLists(store: ModelStore, keys: readonly string[], now: number): { listed: string | undefined; listTtl: number } {
  let listed: string | undefined;
  let listTtl = 0;
  for (const key of keys) {
    const entry = store.get<string>(key, now);
    if (entry !== "deny" && (entry !== "allow" || listed === "deny")) continue;
    const ttl = store.pttl(key, now);
    if (entry !== listed) [listed, listTtl] = [entry, ttl];
    else if (listTtl !== -1 && (ttl === -1 || ttl > listTtl)) listTtl = ttl;
  }
  return { listed, listTtl };
}

/** What the main part knows before any rule is checked. */
interface Head {
  listed: string | undefined;
  listTtl: number;
  /** The deciding group, 1-based as in Lua. */
  chosen: number;
}

/** The decision tail: a listed client is decided by its entry; otherwise check all, charge all or none. */
function decide({ listed, listTtl, chosen }: Head, run: () => RuleCheck[]): number[] {
  if (listed === "deny") return [2, chosen, listTtl];
  if (listed === "allow") return [3, chosen, listTtl];
  const checks = run();
  const allowed = checks.every((check) => check.ok);
  const reply = [allowed ? 1 : 0, chosen, 0];
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

/** The status tail: the list entry, the tier and every outcome, nothing charged. */
function report({ listed, listTtl, chosen }: Head, run: () => RuleCheck[]): number[] {
  const checks = run();
  const verdict = listed === "deny" ? 2 : listed === "allow" ? 3 : checks.every((check) => check.ok) ? 1 : 0;
  return [verdict, chosen, listTtl, ...checks.flatMap(uncharged)];
}

function uncharged(check: RuleCheck): number[] {
  return [check.ok ? 1 : 0, Math.max(check.remaining, 0), check.resetAt, check.ok ? 0 : check.retryMs];
}
