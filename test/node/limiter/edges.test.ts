import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Limiter } from "../../../src/limiter/types.ts";
import { startHarness, T0, type Harness } from "./harness.ts";
import { smallRule } from "./rules.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** Sends one request per step (ms after T0) and returns what each decision said. */
async function run(limiter: Limiter, steps: number[]) {
  const seen: { at: number; allowed: boolean; retryAt?: number }[] = [];
  for (const at of steps) {
    const decision = await limiter.limit({ client: "edge", scope: "", now: T0 + at });
    seen.push({ at, allowed: decision.allowed, ...(decision.retryAt === undefined ? {} : { retryAt: decision.retryAt - T0 }) });
  }
  return seen;
}

// Every rule here: 2 requests per 1,000 ms (token-bucket: burst 2, one token per 500 ms).
const rule = (algorithm: Parameters<typeof smallRule>[0]) => smallRule(algorithm, { limit: 2, ...(algorithm === "token-bucket" && { burst: 2 }) });

describe("Window edges with a pinned now (limit 2 per 1,000 ms)", () => {
  it("Should start a fresh fixed window exactly at its edge, not 1 ms before", async () => {
    expect(await run(h.limiter([rule("fixed-window")]), [0, 500, 999, 1_000, 1_001, 1_002])).toEqual([
      { at: 0, allowed: true },
      { at: 500, allowed: true },
      { at: 999, allowed: false, retryAt: 1_000 },
      { at: 1_000, allowed: true },
      { at: 1_001, allowed: true },
      { at: 1_002, allowed: false, retryAt: 2_000 },
    ]);
  });

  // With 32 buckets of 32 ms, each bucket holds one request here: the sliding window is as exact as the log.
  for (const algorithm of ["sliding-log", "sliding-window"] as const) {
    it(`Should let a ${algorithm} entry leave the window exactly one window after it came`, async () => {
      expect(await run(h.limiter([rule(algorithm)]), [0, 500, 999, 1_000, 1_001, 1_499, 1_500])).toEqual([
        { at: 0, allowed: true },
        { at: 500, allowed: true },
        { at: 999, allowed: false, retryAt: 1_000 },
        { at: 1_000, allowed: true },
        { at: 1_001, allowed: false, retryAt: 1_500 },
        { at: 1_499, allowed: false, retryAt: 1_500 },
        { at: 1_500, allowed: true },
      ]);
    });
  }

  it("Should keep counting the previous window across the edge in the two-counter approximation, and admit once its weight has faded", async () => {
    expect(await run(h.limiter([rule("sliding-window-approx")]), [500, 500, 999, 1_000, 1_001, 1_499, 1_500, 1_501])).toEqual([
      { at: 500, allowed: true },
      { at: 500, allowed: true },
      { at: 999, allowed: false, retryAt: 1_500 },
      { at: 1_000, allowed: false, retryAt: 1_500 },
      { at: 1_001, allowed: false, retryAt: 1_500 },
      { at: 1_499, allowed: false, retryAt: 1_500 },
      { at: 1_500, allowed: true },
      { at: 1_501, allowed: false, retryAt: 2_000 },
    ]);
  });

  it("Should refill one token-bucket token exactly one emission interval after the burst", async () => {
    expect(await run(h.limiter([rule("token-bucket")]), [0, 0, 0, 499, 500, 501])).toEqual([
      { at: 0, allowed: true },
      { at: 0, allowed: true },
      { at: 0, allowed: false, retryAt: 500 },
      { at: 499, allowed: false, retryAt: 500 },
      { at: 500, allowed: true },
      { at: 501, allowed: false, retryAt: 1_000 },
    ]);
  });

  it("Should report remaining and reset per rule, and retryAfter in whole seconds", async () => {
    const limiter = h.limiter([rule("fixed-window")]);
    const first = await limiter.limit({ client: "edge", scope: "", now: T0 + 250 });
    expect(first).toEqual({ allowed: true, rule: "default", rules: [{ rule: "default", limit: 2, remaining: 1, resetAt: T0 + 1_000, windowMs: 1_000 }] });
    await limiter.limit({ client: "edge", scope: "", now: T0 + 250 });
    const refused = await limiter.limit({ client: "edge", scope: "", now: T0 + 250 });
    expect(refused).toMatchObject({ allowed: false, rule: "default", retryAfter: 1, retryAt: T0 + 1_000, rules: [{ remaining: 0 }] });
  });
});
