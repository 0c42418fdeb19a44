/**
 * @module The rate-limit middleware, as the package exports it (`ratewall/middleware`).
 */
export { type ClientAddress, rateLimit, type RateLimitOptions, type RateLimitState } from "./rate-limit.ts";
export type { LogEntry, Logger } from "./log.ts";
export type { DecisionEvent, Outcome } from "../../events/decision-event.ts";
export type { Decision, Rule, ScriptRunner } from "../../limiter/types.ts";
