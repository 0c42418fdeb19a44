import { describe, expect, it } from "vitest";
import { RedisRestError } from "../errors.ts";
import { compilePlan } from "./plan.ts";
import { parseReply } from "./reply.ts";
import type { Rule } from "./types.ts";

const now = 1_000_000;
const rules: Rule[] = [
  { name: "second", algorithm: "fixed-window", limit: 10, windowMs: 1_000 },
  { name: "hour", algorithm: "token-bucket", limit: 1_000, windowMs: 3_600_000, burst: 50 },
];
const plan = compilePlan(rules);
const single = compilePlan(rules.slice(0, 1));
const tiered = compilePlan({ tiers: { free: rules.slice(0, 1), pro: rules }, defaultTier: "free" });

describe("parseReply", () => {
  it("Should name the rule with the fewest remaining when allowed", () => {
    const decision = parseReply([1, 1, 0, 1, 9, now + 1_000, 0, 1, 3, now + 170_000, 0], plan, now);
    expect(decision).toEqual({
      allowed: true,
      rule: "hour",
      rules: [
        { rule: "second", limit: 10, remaining: 9, resetAt: now + 1_000, windowMs: 1_000 },
        { rule: "hour", limit: 50, remaining: 3, resetAt: now + 170_000, windowMs: 3_600_000 },
      ],
    });
  });

  it("Should name the first of the rules with the fewest remaining on a tie", () => {
    expect(parseReply([1, 1, 0, 1, 3, now + 1_000, 0, 1, 3, now + 170_000, 0], plan, now)).toMatchObject({ allowed: true, rule: "second" });
  });

  it("Should name the refusing rule that lets a retry through last, and retry after it", () => {
    const decision = parseReply([0, 1, 0, 0, 0, now + 400, 400, 0, 0, now + 180_000, 2_500], plan, now);
    expect(decision).toMatchObject({ allowed: false, rule: "hour", retryAt: now + 2_500, retryAfter: 3 });
    expect(parseReply([0, 1, 0, 0, 0, now + 400, 4_000, 0, 0, now + 180_000, 2_500], plan, now)).toMatchObject({ rule: "second", retryAt: now + 4_000 });
  });

  it("Should block each client of a multi-key refusal under the rule that lets it through last", () => {
    const decision = parseReply([0, 1, 0, 0, 0, now + 400, 400, 0, 0, now + 180_000, 2_500], plan, now, ["a", "a"]);
    expect(decision.refusedClients).toEqual([{ client: "a", rule: "hour", retryAt: now + 2_500 }]);
  });

  it("Should round retryAfter up to whole seconds, so a client that honours it is not refused again, and say at least 1 s", () => {
    expect(parseReply([0, 1, 0, 0, 0, now + 1_400, 1_400], single, now)).toMatchObject({ retryAfter: 2, retryAt: now + 1_400 });
    expect(parseReply([0, 1, 0, 0, 0, now, 0], single, now)).toMatchObject({ retryAfter: 1, retryAt: now });
  });

  it("Should read the rules of the tier that decided, and name the tier", () => {
    const decision = parseReply([1, 2, 0, 1, 9, now + 1_000, 0, 1, 3, now + 170_000, 0], tiered, now);
    expect(decision).toMatchObject({ allowed: true, tier: "pro", rule: "hour", rules: [{ rule: "second" }, { rule: "hour" }] });
  });

  it("Should refuse a denied client until its entry expires, and admit an allowed one, without rules", () => {
    expect(parseReply([2, 1, 30_500], single, now)).toEqual({
      allowed: false,
      rule: "",
      rules: [],
      reason: "deny-list",
      retryAt: now + 30_500,
      retryAfter: 31,
      listExpiresAt: now + 30_500,
    });
    expect(parseReply([2, 1, -1], single, now)).toEqual({ allowed: false, rule: "", rules: [], reason: "deny-list" });
    expect(parseReply([3, 1, -1], single, now)).toEqual({ allowed: true, rule: "", rules: [], reason: "allow-list" });
  });

  it("Should refuse a reply of the wrong shape with a reply error", () => {
    for (const reply of [null, "OK", [1, 1, 9], [1, 1, 0, 1, "9", now, 0], [1, 3, 0, 1, 9, now, 0], [1, 1, 0]]) {
      expect(() => parseReply(reply, single, now)).toThrow(RedisRestError);
    }
  });

  it("Should refuse a reply whose verdict is unknown, contradicts its rules, or whose counts are not whole and non-negative", () => {
    for (const reply of [
      [7, 1, 0, 1, 9, now + 1_000, 0],
      [1, 1, 0, 0, 0, now + 1_000, 400],
      [0, 1, 0, 1, 9, now + 1_000, 0],
      [1, 1, 0, 2, 9, now + 1_000, 0],
      [1, 1, 0, 1, 2.5, now + 1_000, 0],
      [1, 1, 0, 1, -3, now + 1_000, 0],
      [0, 1, 0, 0, 0, now + 1_000, -5],
      [1, 1.5, 0, 1, 9, now + 1_000, 0],
    ]) {
      expect(() => parseReply(reply, single, now), JSON.stringify(reply)).toThrow(RedisRestError);
    }
  });
});
