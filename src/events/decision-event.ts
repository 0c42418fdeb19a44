/**
 * @module One decision event per request the middleware sees: what was decided, by which rule,
 * how close the client is to its limit, and how long Redis took. Pure: built from the route, the
 * decision and the request's `cf` fields; where the event goes is ./event-sink.ts's business.
 */
import { requestsOf } from "../headers/rate-limit-headers.ts";
import type { Decision, Rule } from "../limiter/types.ts";

/** Every outcome, in the order the README's analytics section lists them. */
export const OUTCOMES = ["allowed", "refused", "shadow-refused", "block-cache", "failed-open", "failed-closed", "unlimited", "denied", "allow-listed"] as const;

/**
 * - `allowed`: Redis admitted the request.
 * - `refused`: Redis refused it (enforce mode); `block-cache`: refused again from isolate memory.
 * - `shadow-refused`: Redis refused it but shadow mode let it through.
 * - `failed-open` / `failed-closed`: the Redis call failed, and `FAILURE_MODE` decided.
 * - `unlimited`: the route counts nothing.
 * - `denied` / `allow-listed`: a deny or allow list decided: a static one, without Redis, or an
 *   operator's entry, read in the decision's script call (a denial also from the block cache).
 */
export type Outcome = (typeof OUTCOMES)[number];

/**
 * A client within this share of its limit is "near" it: envoy's ratelimit counts `near_limit`
 * at 80% of the quota used, i.e. 20% remaining.
 */
export const NEAR_LIMIT_RATIO = 0.2;

/** What one request's decision was. Numbers are 0 and names empty where nothing was decided. */
export interface DecisionEvent {
  outcome: Outcome;
  /** The route's name (`name`, else its pattern); `default` for requests no route matches. */
  route: string;
  /** The deciding rule (see `Decision.rule`). */
  rule: string;
  algorithm: string;
  /** The deciding rule's limit (for `token-bucket`, its burst), in requests of the route's cost. */
  limit: number;
  /** Requests the deciding rule still allows, as the `RateLimit` header's `r` counts them. */
  remaining: number;
  /** `remaining` ≤ {@link NEAR_LIMIT_RATIO} × `limit`. */
  nearLimit: boolean;
  /** The Redis call's duration, ms; 0 when there was none. */
  redisMs: number;
  /** Per `ANALYTICS_CLIENT`: the client hashed (default) or plain; absent for `none`. */
  client?: string;
  /** `request.cf.country`, when Cloudflare gave it. */
  country?: string;
  /** `request.cf.colo`: the data center that served the request. */
  colo?: string;
}

/** The part of `request.cf` an event reads. */
export interface CfFields {
  country?: unknown;
  colo?: unknown;
  asn?: unknown;
}

/**
 * Builds the event for one request, without its client (added by the sink, which may hash it).
 * Counts are in requests of `cost` units, as the headers and the admin API's `status` give them:
 * in units, a refused request on a route of cost 2 could show one left.
 *
 * @example
 * decisionEvent("allowed", "api", rules, decision, 1.8, request.cf);
 * // { outcome: "allowed", route: "api", rule: "default", algorithm: "fixed-window", limit: 100, remaining: 12, nearLimit: true, redisMs: 1.8, country: "DE", colo: "FRA" }
 */
export function decisionEvent(
  outcome: Outcome,
  route: string,
  rules: readonly Rule[],
  decision: Decision | undefined,
  redisMs: number,
  cf: CfFields | undefined,
  cost = 1,
): DecisionEvent {
  const outcomeOfRule = decision?.rules.find((rule) => rule.rule === decision.rule);
  const rule = outcomeOfRule ? rules.find((candidate) => candidate.name === outcomeOfRule.rule) : undefined;
  const limit = requestsOf(outcomeOfRule?.limit ?? 0, cost);
  const remaining = requestsOf(outcomeOfRule?.remaining ?? 0, cost);
  const event: DecisionEvent = {
    outcome,
    route,
    rule: outcomeOfRule?.rule ?? "",
    algorithm: rule?.algorithm ?? "",
    limit,
    remaining,
    nearLimit: outcomeOfRule !== undefined && remaining <= NEAR_LIMIT_RATIO * limit,
    redisMs,
  };
  if (typeof cf?.country === "string") event.country = cf.country;
  if (typeof cf?.colo === "string") event.colo = cf.colo;
  return event;
}
