/**
 * @module A route's rules compiled once (validated, algorithms resolved, per-rule ARGV built) and
 * turned into KEYS and ARGV per request. Pure; shared by the Redis limiter and the in-memory one.
 */
import { buildKey } from "../keys/build-key";
import type { Algorithm, RuleParams } from "./algorithm";
import type { LimiterScript } from "./assemble-script";
import * as multiRule from "./multi-rule/script";
import { algorithmByName } from "./registry";
import type { LimitRequest, Rule } from "./types";

/** Rules ready to run: what `limit()` needs per request, computed once. */
export interface Plan {
  readonly rules: readonly Rule[];
  readonly algorithms: readonly Algorithm[];
  readonly params: readonly RuleParams[];
  /** The algorithm's own script for one rule, the multi-rule script for several. */
  readonly script: LimiterScript;
  /** Each rule's keys for one request, in rule order. Throws RangeError for a bad cost or clock. */
  keys(request: LimitRequest, prefix: string): string[][];
  /** KEYS and ARGV for one request. Throws RangeError for a bad cost or clock. */
  arguments(request: LimitRequest, prefix: string): { keys: string[]; args: string[] };
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 1;

/**
 * Validates `rules` and compiles them. Errors name the rule and quote the bad value.
 *
 * @example
 * const plan = compilePlan(rules);
 */
export function compilePlan(input: readonly Rule[]): Plan {
  const rules = Object.freeze(input.map((rule) => Object.freeze({ ...rule }))); // the caller's later edits change nothing
  if (rules.length === 0) throw new RangeError("a limiter needs at least one rule");
  const names = new Set<string>();
  const algorithms = rules.map((rule, i) => {
    const where = `rules[${i}] (${JSON.stringify(rule.name)})`;
    const algorithm = algorithmByName(rule.algorithm);
    if (algorithm === undefined) throw new RangeError(`${where}: unknown algorithm ${JSON.stringify(rule.algorithm)}`);
    if (rule.name === "" || names.has(rule.name)) throw new RangeError(`${where}: rule names must be unique and not empty`);
    names.add(rule.name);
    for (const field of ["limit", "windowMs", "burst", "buckets"] as const) {
      if ((field === "limit" || field === "windowMs" || rule[field] !== undefined) && !isCount(rule[field])) {
        throw new RangeError(`${where}: ${field} must be an integer >= 1, got ${JSON.stringify(rule[field])}`);
      }
    }
    // Keeps every product the scripts form (count × window) exact in a double, in Lua and in JS.
    if (Math.max(rule.limit, rule.burst ?? 0) * rule.windowMs > 2 ** 50) {
      throw new RangeError(`${where}: limit × windowMs is too large (max 2^50)`);
    }
    if (rule.buckets !== undefined && algorithm.defaultBuckets === undefined) throw new RangeError(`${where}: only sliding-window has buckets`);
    const unfit = algorithm.refuses?.(paramsOf(rule, algorithm.defaultBuckets));
    if (unfit !== undefined) throw new RangeError(`${where}: ${unfit}`);
    return algorithm;
  });
  const params = rules.map((rule, i) => paramsOf(rule, algorithms[i]!.defaultBuckets));
  const ruleArgs = rules.flatMap((rule, i) => [algorithms[i]!.tag, String(rule.limit), String(rule.windowMs), String(params[i]!.burst), String(params[i]!.buckets)]);
  const several = rules.length > 1;
  return {
    rules,
    algorithms,
    params,
    script: several ? multiRule : algorithms[0]!.script,
    keys({ client, scope, cost = 1, now }, prefix) {
      if (!isCount(cost)) throw new RangeError(`cost must be an integer >= 1, got ${JSON.stringify(cost)}`);
      if (!Number.isSafeInteger(now) || now < 0) throw new RangeError(`now must be ms since the epoch, got ${JSON.stringify(now)}`);
      return rules.map((rule, i) => {
        const algorithm = algorithms[i]!;
        const baseKey = buildKey({ prefix, tag: algorithm.tag, client, scope, rule: several ? rule.name : undefined });
        return algorithm.keys(baseKey, params[i]!, now);
      });
    },
    arguments(request, prefix) {
      return { keys: this.keys(request, prefix).flat(), args: [String(request.now), String(request.cost ?? 1), ...ruleArgs] };
    },
  };
}

/** A rule's numbers as the scripts receive them; absent options take their defaults. */
function paramsOf(rule: Rule, defaultBuckets = 1): RuleParams {
  return { limit: rule.limit, windowMs: rule.windowMs, burst: rule.burst ?? rule.limit, buckets: rule.buckets ?? defaultBuckets };
}
