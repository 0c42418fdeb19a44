import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLimiter } from "../../../src/limiter/index.ts";
import type { Limiter, Rule } from "../../../src/limiter/types.ts";
import { startHarness, T0, type Harness } from "./harness.ts";
import { ALGORITHMS, smallRule } from "./rules.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** One request of `cost` at `at` ms after T0: whether it passed, its first rule's remaining and reset, and retryAt, relative to T0. */
async function at(limiter: Limiter, ms: number, cost = 1) {
  const { allowed, rules, retryAt } = await limiter.limit({ client: "edge", scope: "", cost, now: T0 + ms });
  return { allowed, remaining: rules[0]!.remaining, resetAt: rules[0]!.resetAt - T0, ...(retryAt === undefined ? {} : { retryAt: retryAt - T0 }) };
}

/** Sends one request per step (ms after T0) and returns what each decision said. */
async function run(limiter: Limiter, steps: number[]) {
  const seen: { at: number; allowed: boolean; retryAt?: number }[] = [];
  for (const ms of steps) {
    const { allowed, retryAt } = await at(limiter, ms);
    seen.push({ at: ms, allowed, ...(retryAt === undefined ? {} : { retryAt }) });
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

  for (const algorithm of ["sliding-log", "sliding-window"] as const) {
    it(`Should let a ${algorithm} request of cost 2 leave whole, one window after it came`, async () => {
      const limiter = h.limiter([rule(algorithm)]);
      expect(await at(limiter, 0, 2)).toMatchObject({ allowed: true, remaining: 0 });
      expect(await at(limiter, 999)).toMatchObject({ allowed: false, retryAt: 1_000 });
      expect(await at(limiter, 1_000, 2)).toMatchObject({ allowed: true, remaining: 0 });
    });
  }

  it("Should announce a sliding-log reset from its newest entry to a Worker whose clock lags behind it", async () => {
    const limiter = h.limiter([rule("sliding-log")]);
    await at(limiter, 500);
    expect(await at(limiter, 200)).toMatchObject({ allowed: true, resetAt: 1_500 });
  });

  it("Should tell a two-counter request costing the whole limit to wait until the previous window has faded out", async () => {
    const limiter = h.limiter([rule("sliding-window-approx")]);
    await at(limiter, 500);
    expect(await at(limiter, 1_250, 2)).toMatchObject({ allowed: false, retryAt: 2_000 });
    expect(await at(limiter, 2_000, 2)).toMatchObject({ allowed: true });
  });

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

describe("A limit lowered on redeploy, below what a client has already spent", () => {
  // 8 requests under a limit of 10, then a limit of 5. Token-bucket's room is its burst: 10, then 2
  // (the 8 leave a backlog of 7 tokens at the check).
  const rule = (algorithm: Rule["algorithm"], limit: 10 | 5): Rule =>
    smallRule(algorithm, { limit, ...(algorithm === "token-bucket" && { burst: limit === 10 ? 10 : 2 }) });
  const other: Rule = { name: "other", algorithm: "fixed-window", limit: 100, windowMs: 60_000 };
  const request = (now: number) => ({ client: "spent", scope: "", now: T0 + now });

  for (const algorithm of ALGORITHMS) {
    for (const [setup, withOther] of [
      ["alone", false],
      ["beside another rule", true],
    ] as const) {
      it(`Should report 0 remaining, never a negative count, for ${algorithm} ${setup}`, async () => {
        const prefix = h.prefix();
        const deploy = (limit: 10 | 5) => createLimiter([rule(algorithm, limit), ...(withOther ? [other] : [])], { runner: h.runner, prefix });
        const before = deploy(10);
        for (let i = 0; i < 8; i++) await before.limit(request(100));
        const after = deploy(5);
        for (const decision of [await after.status(request(200)), await after.limit(request(200))]) {
          expect(decision.allowed).toBe(false);
          expect(decision.rules[0]!.remaining).toBe(0);
        }
      });
    }
  }
});
