import { describe, expect, it } from "vitest";
import type { Decision, Rule } from "../limiter/types.ts";
import { decisionEvent } from "./decision-event.ts";

const rules: Rule[] = [
  { name: "second", algorithm: "fixed-window", limit: 10, windowMs: 1_000 },
  { name: "hour", algorithm: "token-bucket", limit: 1_000, windowMs: 3_600_000, burst: 50 },
];
const decision = (rule: string, remaining: [number, number]): Decision => ({
  allowed: true,
  rule,
  rules: [
    { rule: "second", limit: 10, remaining: remaining[0], resetAt: 2_000, windowMs: 1_000 },
    { rule: "hour", limit: 50, remaining: remaining[1], resetAt: 170_000, windowMs: 3_600_000 },
  ],
});

describe("decisionEvent", () => {
  it("Should report the rule that decided, with its own limit, remaining and algorithm, not the route's first rule", () => {
    expect(decisionEvent("allowed", "api", rules, decision("hour", [9, 3]), 1.5, { country: "DE", colo: "FRA" })).toEqual({
      outcome: "allowed",
      route: "api",
      rule: "hour",
      algorithm: "token-bucket",
      limit: 50,
      remaining: 3,
      nearLimit: true,
      redisMs: 1.5,
      country: "DE",
      colo: "FRA",
    });
  });

  it("Should call a request near its limit when at most a fifth of the deciding rule's limit remains", () => {
    expect(decisionEvent("allowed", "api", rules, decision("second", [2, 40]), 1, undefined).nearLimit).toBe(true);
    expect(decisionEvent("allowed", "api", rules, decision("second", [3, 40]), 1, undefined).nearLimit).toBe(false);
  });

  it("Should count in requests of the route's cost, as the headers do, so a refusal never shows one left", () => {
    const refused: Decision = { allowed: false, rule: "second", rules: [{ rule: "second", limit: 5, remaining: 1, resetAt: 2_000, windowMs: 1_000 }] };
    expect(decisionEvent("refused", "api", rules, refused, 1, undefined, 2)).toMatchObject({ limit: 2, remaining: 0, nearLimit: true });
  });

  it("Should name no rule when nothing was counted (a listed client, a Redis failure)", () => {
    expect(decisionEvent("failed-open", "api", rules, undefined, 0, undefined)).toMatchObject({ rule: "", algorithm: "", limit: 0, nearLimit: false });
  });
});
