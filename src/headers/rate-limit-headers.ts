/**
 * @module Decision + now → response headers.
 *
 * - `RateLimit-Policy` and `RateLimit` follow the IETF httpapi draft "RateLimit header fields for
 *   HTTP" (draft-ietf-httpapi-ratelimit-headers): each is a Structured Field list (RFC 9651) with
 *   one item per policy, keyed by the policy name as an sf-string: `"default";q=100;w=60` (quota,
 *   window in seconds) and `"default";r=42;t=18` (remaining, seconds until the quota resets).
 * - Legacy `X-RateLimit-Limit/-Remaining/-Reset` describe the deciding rule only; `-Reset` is the
 *   reset time in Unix seconds, GitHub's convention, which most clients that read it expect.
 * - `Retry-After` (RFC 9110 §10.2.3) on every 429, in whole seconds rounded up, so that a client
 *   honouring it never comes back before the reset.
 */
import type { HeaderStyle } from "../config/types.ts";
import type { Decision, Rule, RuleOutcome } from "../limiter/types.ts";

/** Header name → value, in the order they should be set. */
export type HeaderList = Array<[string, string]>;

/**
 * The `RateLimit-Policy` value for a route's rules, quotas in requests of `cost` units
 * ({@link requestsOf}): fixed per route, so built once.
 *
 * @example
 * policyHeader([{ name: "default", algorithm: "fixed-window", limit: 100, windowMs: 60_000 }]);
 * // '"default";q=100;w=60'
 */
export function policyHeader(rules: readonly Rule[], cost = 1): string {
  return rules.map((rule) => `"${rule.name}";q=${requestsOf(rule.burst ?? rule.limit, cost)};w=${seconds(policyWindowMs(rule, cost))}`).join(", ");
}

/**
 * Units as requests of `cost` units each, which every quota and count in the headers is: the
 * draft's quota unit is requests unless `qu` says otherwise, and ratewall sends no `qu`, so on a
 * route whose requests cost 2, `r=1` in units would announce a request that is refused.
 *
 * @example
 * requestsOf(5, 2); // 2
 */
export function requestsOf(units: number, cost: number): number {
  return Math.floor(units / cost);
}

/**
 * A token bucket's quota is its burst, and its window the time the bucket takes to refill that
 * burst: a client pacing itself at q per w then keeps the rule's rate, as the draft's quota
 * policy means; `q=burst` with the rule's window would announce more than the bucket sustains.
 * With a `cost`, the burst's whole requests are announced, and the time to refill what they spend.
 */
export function policyWindowMs(rule: Rule, cost = 1): number {
  // By algorithm, not by `burst`: a bucket written without one has a burst of its limit, and must
  // be announced as the same bucket written with `burst` equal to its limit is.
  return rule.algorithm === "token-bucket" ? (rule.windowMs * requestsOf(rule.burst ?? rule.limit, cost) * cost) / rule.limit : rule.windowMs;
}

/**
 * The headers for one decision, for the given style. `policy` is {@link policyHeader}'s value.
 *
 * @example
 * rateLimitHeaders(decision, policy, Date.now(), "draft");
 * // [["RateLimit-Policy", '"default";q=100;w=60'], ["RateLimit", '"default";r=42;t=18']]
 */
export function rateLimitHeaders(decision: Decision, policy: string, now: number, style: HeaderStyle, cost = 1): HeaderList {
  const headers: HeaderList = [];
  const deciding = decidingOutcome(decision);
  if (deciding && (style === "draft" || style === "both")) {
    headers.push(["RateLimit-Policy", policy]);
    headers.push([
      "RateLimit",
      decision.rules.map((outcome) => `"${outcome.rule}";r=${requestsOf(outcome.remaining, cost)};t=${secondsUntil(outcome.resetAt, now)}`).join(", "),
    ]);
  }
  if (deciding && (style === "legacy" || style === "both")) headers.push(...legacyHeaders(deciding, cost));
  if (!decision.allowed) headers.push(["Retry-After", String(retryAfterSeconds(decision, now))]);
  return headers;
}

/**
 * Seconds a refused client must wait, rounded up and at least 1: the limiter's own `retryAfter`
 * when it gives one (a token bucket refills before it is full again), else the deciding rule's
 * reset.
 */
export function retryAfterSeconds(decision: Decision, now: number): number {
  if (decision.retryAfter !== undefined) return Math.max(1, Math.ceil(decision.retryAfter));
  const deciding = decidingOutcome(decision);
  return Math.max(1, deciding ? secondsUntil(deciding.resetAt, now) : 1);
}

/** The deciding rule's outcome ({@link Decision.rule}), else the first one. */
function decidingOutcome(decision: Decision): RuleOutcome | undefined {
  return decision.rules.find((outcome) => outcome.rule === decision.rule) ?? decision.rules[0];
}

function legacyHeaders(outcome: RuleOutcome, cost: number): HeaderList {
  return [
    ["X-RateLimit-Limit", String(requestsOf(outcome.limit, cost))],
    ["X-RateLimit-Remaining", String(requestsOf(outcome.remaining, cost))],
    ["X-RateLimit-Reset", String(Math.ceil(outcome.resetAt / 1000))],
  ];
}

/** Whole seconds, rounded up: a sub-second window is announced as 1 s, never as 0. */
function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function secondsUntil(at: number, now: number): number {
  return Math.max(0, Math.ceil((at - now) / 1000));
}
