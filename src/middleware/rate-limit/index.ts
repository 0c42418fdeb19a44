/**
 * @module The rate-limit middleware, as the package exports it (`ratewall/middleware`).
 */
export { rateLimit, type RateLimitOptions, type RateLimitState } from "./rate-limit";
export type { LogEntry, Logger } from "./log";
export type { DecisionEvent, Outcome } from "../../events/decision-event";
export type { Decision, Rule, ScriptRunner } from "../../limiter/types";
