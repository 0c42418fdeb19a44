/**
 * @module The rate-limit middleware, as the package exports it (`ratewall/middleware`).
 */
export { type ClientAddress, rateLimit, type RateLimitOptions, type RateLimitState } from "./rate-limit.ts";
export type { LogEntry, Logger } from "./log.ts";
export type { DecisionEvent, Outcome } from "../../events/decision-event.ts";
export type { Decision, Rule, ScriptRunner } from "../../limiter/types.ts";
// The types of RateLimitOptions' fields and of RateLimitState.route, for code that builds or reads them.
export type { LimiterFactory } from "./runtime.ts";
export type { Vars } from "../../settings.ts";
export type { RouteSettings } from "../../config/types.ts";
