/**
 * @module The script's reply, turned into a {@link Decision}. The layout is the one every limiter
 * script shares (./assemble-script.ts): `allowed`, then per rule ok, remaining, reset at (ms),
 * retry in (ms). The in-memory model produces the same flat array, so both paths share this parser.
 */
import { RedisRestError } from "../errors";
import type { Decision, Rule, RuleOutcome } from "./types";

const FIELDS_PER_RULE = 4;

/**
 * Parses a reply for `rules` (in the route's order). Throws {@link RedisRestError} (`reply`) when
 * the shape is not the expected one, e.g. a script from another version under the same SHA1.
 *
 * @example
 * parseReply([1, 1, 99, 1_700_000_060_000, 0], rules, 1_700_000_000_000)
 * // { allowed: true, rule: "default", rules: [{ rule: "default", limit: 100, remaining: 99, … }] }
 */
export function parseReply(reply: unknown, rules: readonly Rule[], now: number): Decision {
  if (
    !Array.isArray(reply) ||
    reply.length !== 1 + FIELDS_PER_RULE * rules.length ||
    !reply.every((value) => typeof value === "number")
  ) {
    throw new RedisRestError("reply", "evalsha", `unexpected limiter reply ${JSON.stringify(reply).slice(0, 200)}`);
  }
  const numbers = reply as number[];
  const allowed = numbers[0] === 1;
  const outcomes: RuleOutcome[] = [];
  let refusedBy = -1;
  let retryMs = 0;
  rules.forEach((rule, i) => {
    const at = 1 + FIELDS_PER_RULE * i;
    outcomes.push({
      rule: rule.name,
      limit: rule.algorithm === "token-bucket" ? (rule.burst ?? rule.limit) : rule.limit,
      remaining: numbers[at + 1]!,
      resetAt: numbers[at + 2]!,
      windowMs: rule.windowMs,
    });
    if (numbers[at] !== 1) {
      if (refusedBy === -1) refusedBy = i;
      retryMs = Math.max(retryMs, numbers[at + 3]!);
    }
  });
  const deciding = allowed ? fewestRemaining(outcomes) : Math.max(refusedBy, 0);
  const decision: Decision = { allowed, rule: rules[deciding]!.name, rules: outcomes };
  // Nothing was charged, and without new requests every rule's capacity only grows, so the
  // latest of the refusing rules' retry times is the earliest a retry can pass them all.
  if (!allowed) {
    decision.retryAt = now + retryMs;
    decision.retryAfter = Math.max(1, Math.ceil(retryMs / 1000));
  }
  return decision;
}

/** Index of the outcome with the fewest `remaining`; the first one on a tie. */
function fewestRemaining(outcomes: readonly RuleOutcome[]): number {
  let fewest = 0;
  outcomes.forEach((outcome, i) => {
    if (outcome.remaining < outcomes[fewest]!.remaining) fewest = i;
  });
  return fewest;
}
