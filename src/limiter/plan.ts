/**
 * @module A route's policy (its rules, or its rules per tier) compiled once (validated, algorithms
 * resolved, ARGV built) and turned into KEYS and ARGV per request in the layout of
 * ./assemble-script.ts. Pure; shared by the Redis limiter and the in-memory one.
 */
import { quote } from "../errors.ts";
import { buildKey } from "../keys/build-key.ts";
import type { AlgorithmSpec as Algorithm, RuleParams } from "./algorithm.ts";
import type { LimiterScript } from "./assemble-script.ts";
import * as multiRule from "./multi-rule/script.ts";
import { algorithmByName } from "./catalog.ts";
import { HEAD_BYTES } from "./sliding-window/script.ts";
import type { LimitRequest, Rule } from "./types.ts";

/** One tier's rules (or a route's only rules, named ""), compiled. */
export interface Group {
  /** The tier's name; "" for a route without tiers. */
  readonly name: string;
  readonly rules: readonly Rule[];
  readonly algorithms: readonly Algorithm[];
  readonly params: readonly RuleParams[];
}

/** A policy ready to run: what `limit()` needs per request, computed once. */
export interface Plan {
  /** The groups in ARGV order: one per tier, or one named "" without tiers. */
  readonly groups: readonly Group[];
  /** The tier of clients without one; "" without tiers. */
  readonly defaultTier: string;
  /** The default group's rules: `Limiter.rules`, and every rule a client without a tier meets. */
  readonly rules: readonly Rule[];
  /** The algorithm's own script for one rule without tiers, the multi-rule script otherwise. */
  readonly script: LimiterScript;
  /**
   * Every key of one request: the list entry of each distinct client (one without
   * `request.clients`), the client's tier (with tiers), each group's rules' keys.
   */
  keys(request: LimitRequest, prefix: string): { lists: string[]; tier?: string; groups: string[][][] };
  /** Every rule key of one request (every group's), or of the rules named in `only`: what a reset deletes. */
  ruleKeys(request: LimitRequest, prefix: string, only?: readonly string[]): string[];
  /**
   * KEYS and ARGV for one request; without `lists` the list entries are left out, and the script
   * then reads none. Throws RangeError for a bad cost or clock.
   */
  arguments(request: LimitRequest, prefix: string, lists?: boolean): { keys: string[]; args: string[] };
}

/** Rule sets by tier (`TIERS`), and the tier of clients without one. */
export interface TieredRules {
  readonly tiers: Readonly<Record<string, readonly Rule[]>>;
  readonly defaultTier: string;
}

/** What a limiter enforces: one list of rules (all must admit), or one list per tier. */
export type Policy = readonly Rule[] | TieredRules;

/** The first `now` refused: sliding-window's newest bucket index, in 1 ms buckets, must fit its HEAD_BYTES. */
const MAX_NOW = 2 ** (8 * HEAD_BYTES);
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 1;
/** Tier names here, and route, rule and tier names in the settings, end up in Redis keys and in sf-string header values: a safe alphabet, no `:` or brace. */
export const NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

/**
 * Validates a policy and compiles it. Errors name the tier and rule and quote the bad value.
 *
 * @example
 * const plan = compilePlan(rules);
 * const tiered = compilePlan({ tiers: { free: [hourly100], pro: [hourly5000, perSecond100] }, defaultTier: "free" });
 */
export function compilePlan(policy: Policy): Plan {
  const tiered = !isRuleList(policy);
  if (tiered && (typeof policy?.tiers !== "object" || policy.tiers === null)) {
    throw new RangeError(`rules: expected an array of rules, or { tiers, defaultTier }, got ${quote(policy)}`);
  }
  const named: Array<[string, readonly Rule[]]> = tiered ? Object.entries(policy.tiers) : [["", policy]];
  const defaultTier = tiered ? policy.defaultTier : "";
  if (named.length === 0) throw new RangeError("a tiered limiter needs at least one tier");
  if (tiered && !named.some(([name]) => name === defaultTier)) throw new RangeError(`unknown default tier ${JSON.stringify(defaultTier)}`);
  const groups = named.map(([name, rules]) => {
    if (tiered && !NAME.test(name)) throw new RangeError(`invalid tier name ${JSON.stringify(name)}`);
    return compileGroup(name, rules, tiered ? `tiers.${name}.` : "");
  });
  const args = groups.flatMap((group) => [
    group.name,
    String(group.rules.length),
    ...group.rules.flatMap((rule, i) => [
      group.algorithms[i]!.tag,
      String(rule.limit),
      String(rule.windowMs),
      String(group.params[i]!.burst),
      String(group.params[i]!.buckets),
    ]),
  ]);
  const only = groups.length === 1 && groups[0]!.rules.length === 1 ? groups[0]!.algorithms[0] : undefined;
  const rules = groups.find((group) => group.name === defaultTier)!.rules;
  return {
    groups,
    defaultTier,
    rules,
    script: only ? only.script : multiRule,
    keys({ client, clients, scope, cost = 1, now }, prefix) {
      if (!isCount(cost)) throw new RangeError(`cost must be an integer >= 1, got ${quote(cost)}`);
      if (!Number.isSafeInteger(now) || now < 0) throw new RangeError(`now must be ms since the epoch, got ${quote(now)}`);
      if (now >= MAX_NOW) throw new RangeError(`now must be ms since the epoch before 2^48 (the year 10889), got ${now}`);
      // Typed callers cannot get these wrong; a JavaScript caller's `undefined` would end up in a key.
      if (typeof scope !== "string") throw new RangeError(`scope must be a string, got ${quote(scope)}`);
      if (clients === undefined) requireClient(client);
      else if (!Array.isArray(clients)) throw new RangeError(`clients must be an array of strings, got ${quote(clients)}`);
      else for (const id of clients) requireClient(id);
      if (clients !== undefined) return multiKey(groups[0]!, clients, scope, prefix, now, tiered);
      const list = buildKey({ prefix, tag: "list", client, scope: "" });
      const keys = groups.map((group) => {
        // The rule's name is in its key when it shares the route (or its tier) with others; a
        // tier's rules also carry the tier, so two tiers' rules of one name never share a counter.
        const several = group.rules.length > 1;
        return group.rules.map((rule, i) => {
          const ruleSegment = tiered ? `${group.name}/${rule.name}` : several ? rule.name : undefined;
          const baseKey = buildKey({ prefix, tag: group.algorithms[i]!.tag, client, scope, rule: ruleSegment });
          return group.algorithms[i]!.keys(baseKey, group.params[i]!, now);
        });
      });
      return tiered ? { lists: [list], tier: buildKey({ prefix, tag: "tier", client, scope: "" }), groups: keys } : { lists: [list], groups: keys };
    },
    ruleKeys(request, prefix, only) {
      const keys = this.keys(request, prefix).groups;
      return groups.flatMap((group, g) => group.rules.flatMap((rule, i) => (only === undefined || only.includes(rule.name) ? keys[g]![i]! : [])));
    },
    arguments(request, prefix, withLists = true) {
      const { lists, tier, groups: keys } = this.keys(request, prefix);
      return {
        keys: [...(withLists ? lists : []), ...(tier === undefined ? [] : [tier]), ...keys.flat(2)],
        args: [String(request.now), String(request.cost ?? 1), defaultTier, ...args],
      };
    },
  };
}

/**
 * The keys of a request whose rules count different clients: every key carries the route as its
 * hash tag (the clients differ, the slot must not), and the list entries are the route's copies
 * (`<prefix>:list:{route:<scope>}:<client>`, which the admin API writes beside the client's own).
 */
function multiKey(group: Group, clients: readonly string[], scope: string, prefix: string, now: number, tiered: boolean) {
  if (tiered) throw new RangeError("a tiered limiter counts one client per request, not one per rule");
  if (clients.length !== group.rules.length) throw new RangeError(`expected one client per rule (${group.rules.length}), got ${clients.length}`);
  const lists = [...new Set(clients)].map((client) => buildKey({ prefix, tag: "list", client, scope, hashTag: "route" }));
  const keys = group.rules.map((rule, i) =>
    group.algorithms[i]!.keys(
      buildKey({ prefix, tag: group.algorithms[i]!.tag, client: clients[i]!, scope, rule: rule.name, hashTag: "route" }),
      group.params[i]!,
      now,
    ),
  );
  return { lists, groups: [keys] };
}

/** Refuses a client that is no non-empty string, as only a JavaScript caller can pass. */
function requireClient(id: unknown): void {
  if (typeof id !== "string" || id === "") throw new RangeError(`client must be a non-empty string, got ${quote(id)}`);
}

function isRuleList(policy: Policy): policy is readonly Rule[] {
  return Array.isArray(policy);
}

/**
 * The largest limit (or burst) × window, in ms, a rule may have: it keeps every product the scripts
 * form (count × window) exact in a double, in Lua and in JS.
 */
export const MAX_COUNT_TIMES_WINDOW_MS = 2 ** 50;

/** Validates one group's rules; `where` prefixes messages with the tier. */
function compileGroup(name: string, input: readonly Rule[], where: string): Group {
  // Plain JavaScript callers get the same clear errors as typed ones.
  if (!Array.isArray(input)) throw new RangeError(`${where}rules: expected an array of rules, got ${quote(input)}`);
  for (const [i, rule] of input.entries()) {
    if (typeof rule !== "object" || rule === null) throw new RangeError(`${where}rules[${i}]: expected a rule object, got ${quote(rule)}`);
  }
  const rules = Object.freeze(input.map((rule) => Object.freeze({ ...rule }))); // the caller's later edits change nothing
  if (rules.length === 0) throw new RangeError(`${where}a limiter needs at least one rule`);
  const names = new Set<string>();
  const algorithms = rules.map((rule, i) => {
    const at = `${where}rules[${i}] (${JSON.stringify(rule.name)})`;
    const algorithm = algorithmByName(rule.algorithm);
    if (algorithm === undefined) throw new RangeError(`${at}: unknown algorithm ${JSON.stringify(rule.algorithm)}`);
    // A rule's name ends its keys after `:` (src/keys/build-key.ts): a name with a `:` could meet
    // another limiter's scope and rule (`api:hourly` + `daily` against `api` + `hourly:daily`).
    if (typeof rule.name !== "string" || rule.name === "" || rule.name.includes(":") || names.has(rule.name)) {
      throw new RangeError(`${at}: rule names must be non-empty strings without ":", and unique`);
    }
    names.add(rule.name);
    for (const field of ["limit", "windowMs", "burst", "buckets"] as const) {
      if ((field === "limit" || field === "windowMs" || rule[field] !== undefined) && !isCount(rule[field])) {
        throw new RangeError(`${at}: ${field} must be an integer >= 1, got ${quote(rule[field])}`);
      }
    }
    if (Math.max(rule.limit, rule.burst ?? 0) * rule.windowMs > MAX_COUNT_TIMES_WINDOW_MS) {
      throw new RangeError(`${at}: limit × windowMs is too large (max 2^50)`);
    }
    if (rule.buckets !== undefined && algorithm.defaultBuckets === undefined) throw new RangeError(`${at}: only sliding-window has buckets`);
    if (rule.burst !== undefined && rule.algorithm !== "token-bucket") throw new RangeError(`${at}: only token-bucket has a burst`);
    const unfit = algorithm.refuses?.(paramsOf(rule, algorithm.defaultBuckets));
    if (unfit !== undefined) throw new RangeError(`${at}: ${unfit}`);
    return algorithm;
  });
  return { name, rules, algorithms, params: rules.map((rule, i) => paramsOf(rule, algorithms[i]!.defaultBuckets)) };
}

/** A rule's numbers as the scripts receive them; absent options take their defaults. */
function paramsOf(rule: Rule, defaultBuckets = 1): RuleParams {
  return { limit: rule.limit, windowMs: rule.windowMs, burst: rule.burst ?? rule.limit, buckets: rule.buckets ?? defaultBuckets };
}
