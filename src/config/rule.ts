/**
 * @module One rule, as written in `RATE_LIMIT` or in `ROUTES[i].rules[j]`, to a normalized
 * {@link Rule}. A rule is `"<count>/<window>"` for every algorithm (docs/architecture.md, "The algorithms"),
 * or an object when it needs a name, another algorithm, a token-bucket burst or sliding-window buckets.
 */
import { algorithmNames } from "../limiter/catalog.ts";
import { MAX_COUNT_TIMES_WINDOW_MS, NAME } from "../limiter/plan.ts";
import { MAX_BUCKETS } from "../limiter/sliding-window/index.ts";
import type { AlgorithmName } from "../limiter/types.ts";
import { parseDuration } from "./duration.ts";
import { parseKeySource } from "./key-source.ts";
import { type At, child, fail, quote, readChoice, readInteger, readObject } from "./read.ts";
import type { RouteRule } from "./types.ts";

/** The algorithm names, from the limiter's own registry (the one list config validates against). */
export const ALGORITHMS: readonly AlgorithmName[] = algorithmNames;

/** The largest count a rule may allow per window: far above any sane limit, far below 2^53. */
const MAX_COUNT = 1_000_000_000;
const RULE_TEXT = /^([^/]*)\/(.*)$/;
const RULE_KEYS = ["limit", "window", "algorithm", "burst", "buckets", "name", "key"] as const;

/**
 * Reads one rule. `fallbackName` is used when the rule does not name itself. A rule may count its
 * own `key` (same syntax as a route's); `refuseKey`, when given, says why this rule may not.
 *
 * @example
 * parseRule("100/60s", { source: "RATE_LIMIT", path: "" }, "fixed-window", "default");
 * // { name: "default", algorithm: "fixed-window", limit: 100, windowMs: 60000 }
 */
export function parseRule(value: unknown, at: At, algorithm: AlgorithmName, fallbackName: string, refuseKey?: string): RouteRule {
  if (typeof value === "string") return parseRuleText(value, at, algorithm, fallbackName);
  // A number or a list here is a rule written in another form (a list is a route's `rules`); a
  // TOML date is an object too, but no rule.
  if (typeof value !== "object" || value === null || Array.isArray(value) || value instanceof Date) {
    fail(at, `expected a rule, "<count>/<window>" (e.g. "100/60s") or {"limit": …, "window": …}, got ${quote(value)}`);
  }
  const raw = readObject(value, RULE_KEYS, at);
  if (raw.limit === undefined) fail(at, 'missing key "limit"');
  if (raw.window === undefined) fail(at, 'missing key "window"');
  if (raw.key !== undefined && refuseKey !== undefined) fail(child(at, "key"), `a rule's own key ${quote(raw.key)} is not allowed here (${refuseKey})`);
  const rule: RouteRule = {
    name: raw.name === undefined ? fallbackName : readName(raw.name, child(at, "name")),
    algorithm: raw.algorithm === undefined ? algorithm : readChoice(raw.algorithm, ALGORITHMS, "algorithm", child(at, "algorithm")),
    limit: readInteger(raw.limit, 1, MAX_COUNT, child(at, "limit")),
    windowMs: readWindow(raw.window, child(at, "window")),
  };
  if (raw.burst !== undefined) {
    if (rule.algorithm !== "token-bucket") fail(child(at, "burst"), `only token-bucket has a burst (this rule uses ${rule.algorithm})`);
    rule.burst = readInteger(raw.burst, 1, MAX_COUNT, child(at, "burst"));
  }
  if (raw.buckets !== undefined) {
    if (rule.algorithm !== "sliding-window") fail(child(at, "buckets"), `only sliding-window has buckets (this rule uses ${rule.algorithm})`);
    rule.buckets = readInteger(raw.buckets, 2, MAX_BUCKETS, child(at, "buckets"));
  }
  if (raw.key !== undefined) rule.key = parseKeySource(raw.key, child(at, "key"));
  for (const field of ["limit", "burst"] as const) {
    const beyond = beyondExactRange(field, rule[field], rule.windowMs, raw.window as string);
    if (beyond) fail(child(at, field), `invalid value ${rule[field]} (${beyond})`);
  }
  return rule;
}

/**
 * Why `count` per window is more than the scripts count exactly (see
 * {@link MAX_COUNT_TIMES_WINDOW_MS}), with the most that window allows; `undefined` when it fits.
 */
function beyondExactRange(what: string, count: number | undefined, windowMs: number, windowText: string): string | undefined {
  if (count === undefined || count * windowMs <= MAX_COUNT_TIMES_WINDOW_MS) return undefined;
  return `${what} × window must stay within 2^50 ms: at most ${Math.floor(MAX_COUNT_TIMES_WINDOW_MS / windowMs)} per ${windowText}`;
}

/** The name a rule gets when it has none and shares its route with others: `10-per-1s`. */
export function ruleTextName(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const name = value.replace("/", "-per-");
  return NAME.test(name) ? name : undefined;
}

function parseRuleText(text: string, at: At, algorithm: AlgorithmName, name: string): RouteRule {
  const match = RULE_TEXT.exec(text);
  if (!match) fail(at, `invalid rule ${quote(text)} (expected "<count>/<window>", e.g. "100/60s")`);
  const count = match[1]!;
  const limit = /^[1-9][0-9]{0,9}$/.test(count) ? Number(count) : 0;
  if (limit < 1 || limit > MAX_COUNT) fail(at, `invalid count ${quote(count)} (expected an integer from 1 to ${MAX_COUNT})`);
  const windowMs = readWindow(match[2], at);
  const beyond = beyondExactRange("limit", limit, windowMs, match[2]!);
  if (beyond) fail(at, `invalid rule ${quote(text)} (${beyond})`);
  return { name, algorithm, limit, windowMs };
}

function readWindow(value: unknown, at: At): number {
  const ms = typeof value === "string" ? parseDuration(value) : undefined;
  if (ms === undefined) fail(at, `invalid window ${quote(value)} (expected <integer><ms|s|m|h|d>, e.g. "60s")`);
  return ms;
}

/** A rule, tier or route name (`what` in the message): the alphabet keeps it from adding a `:` or brace to a Redis key. */
export function readName(value: unknown, at: At, what = "name"): string {
  if (typeof value !== "string" || !NAME.test(value)) fail(at, `invalid ${what} ${quote(value)} (expected lowercase letters, digits, "_", "." or "-")`);
  return value;
}
