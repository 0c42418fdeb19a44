import { describe, expect, it } from "vitest";
import type { Decision } from "../limiter/types.ts";
import { policyHeader, rateLimitHeaders, retryAfterSeconds } from "./rate-limit-headers.ts";

const now = 1_700_000_000_000;
const rules = [
  { name: "10-per-1s", algorithm: "fixed-window" as const, limit: 10, windowMs: 1000 },
  { name: "1000-per-1h", algorithm: "token-bucket" as const, limit: 1000, windowMs: 3_600_000, burst: 50 },
];
const allowed: Decision = {
  allowed: true,
  rule: "1000-per-1h",
  rules: [
    { rule: "10-per-1s", limit: 10, remaining: 9, resetAt: now + 400, windowMs: 1000 },
    { rule: "1000-per-1h", limit: 50, remaining: 7, resetAt: now + 17_200, windowMs: 3_600_000 },
  ],
};
const refused: Decision = {
  ...allowed,
  allowed: false,
  rule: "10-per-1s",
  rules: [{ rule: "10-per-1s", limit: 10, remaining: 0, resetAt: now + 400, windowMs: 1000 }],
};

describe("policyHeader", () => {
  it("Should list every rule with its quota and window in seconds, a token bucket's as its burst and the time the burst takes to refill", () => {
    expect(policyHeader(rules)).toBe('"10-per-1s";q=10;w=1, "1000-per-1h";q=50;w=180');
    expect(policyHeader([{ name: "b", algorithm: "token-bucket", limit: 2, windowMs: 10_000, burst: 4 }])).toBe('"b";q=4;w=20');
    expect(policyHeader([{ name: "default", algorithm: "fixed-window", limit: 5, windowMs: 500 }])).toBe('"default";q=5;w=1');
  });

  it("Should announce quotas in requests of the route's cost, a token bucket's as the burst's whole requests and the time to refill what they spend", () => {
    expect(policyHeader(rules, 3)).toBe('"10-per-1s";q=3;w=1, "1000-per-1h";q=16;w=173');
    // A bucket of 5 per 10 s refills the 4 units of its 2 whole requests in 8 s, whether or not its burst is written.
    const bucket = { name: "b", algorithm: "token-bucket", limit: 5, windowMs: 10_000 } as const;
    expect([policyHeader([bucket], 2), policyHeader([{ ...bucket, burst: 5 }], 2)]).toEqual(['"b";q=2;w=8', '"b";q=2;w=8']);
    expect(rateLimitHeaders(allowed, "", now, "both", 3)).toEqual([
      ["RateLimit-Policy", ""],
      ["RateLimit", '"10-per-1s";r=3;t=1, "1000-per-1h";r=2;t=18'],
      ["X-RateLimit-Limit", "16"],
      ["X-RateLimit-Remaining", "2"],
      ["X-RateLimit-Reset", String(Math.ceil((now + 17_200) / 1000))],
    ]);
  });
});

describe("rateLimitHeaders", () => {
  const policy = policyHeader(rules);

  it("Should send the draft fields, with t rounded up", () => {
    expect(rateLimitHeaders(allowed, policy, now, "draft")).toEqual([
      ["RateLimit-Policy", policy],
      ["RateLimit", '"10-per-1s";r=9;t=1, "1000-per-1h";r=7;t=18'],
    ]);
  });

  it("Should send t=0, never a negative t, for a window that has already reset", () => {
    const stale: Decision = { ...allowed, rule: "10-per-1s", rules: [{ rule: "10-per-1s", limit: 10, remaining: 9, resetAt: now - 2_500, windowMs: 1000 }] };
    expect(rateLimitHeaders(stale, policy, now, "draft")).toContainEqual(["RateLimit", '"10-per-1s";r=9;t=0']);
  });

  it("Should send the legacy fields for the deciding rule, with the reset in Unix seconds", () => {
    expect(rateLimitHeaders(allowed, policy, now, "legacy")).toEqual([
      ["X-RateLimit-Limit", "50"],
      ["X-RateLimit-Remaining", "7"],
      ["X-RateLimit-Reset", String(Math.ceil((now + 17_200) / 1000))],
    ]);
    expect(rateLimitHeaders(allowed, policy, now, "both").map(([name]) => name)).toEqual([
      "RateLimit-Policy",
      "RateLimit",
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
      "X-RateLimit-Reset",
    ]);
  });

  it("Should send Retry-After on a refusal whatever the style, never before the reset", () => {
    expect(rateLimitHeaders(refused, policy, now, "none")).toEqual([["Retry-After", "1"]]);
    expect(retryAfterSeconds({ ...refused, rules: [{ ...refused.rules[0]!, resetAt: now + 17_001 }] }, now)).toBe(18);
    expect(retryAfterSeconds({ ...refused, retryAfter: 2.2 }, now)).toBe(3);
  });

  it("Should send nothing but Retry-After when the decision has no outcomes", () => {
    expect(rateLimitHeaders({ allowed: true, rule: "default", rules: [], reason: "redis-timeout" }, policy, now, "both")).toEqual([]);
  });
});
