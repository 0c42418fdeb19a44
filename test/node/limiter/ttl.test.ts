import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { TTL_GRACE_MS } from "../../../src/limiter/assemble-script.ts";
import type { Rule } from "../../../src/limiter/types.ts";
import { startHarness, T0, type Harness } from "./harness.ts";
import { ALGORITHMS, MIXED_RULES, smallRule } from "./rules.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** A few clients, requests spread over three windows, some refused. */
async function exercise(rules: Rule[], now: (offset: number) => number) {
  const limiter = h.limiter(rules);
  for (let i = 0; i < 40; i++) {
    await limiter.limit({ client: `c${i % 3}`, scope: "ttl", cost: 1 + (i % 2), now: now(i * 70) });
  }
  return limiter.prefix;
}

/** The longest any key may live: two windows (sliding-window's counter is read as "previous") plus the grace. */
const longest = (rules: Rule[]) => Math.max(...rules.map((r) => 2 * r.windowMs)) + TTL_GRACE_MS;

describe("TTL hygiene", () => {
  for (const rules of [...ALGORITHMS.map((a) => [smallRule(a)]), MIXED_RULES]) {
    it(`Should leave no key without a TTL, and none longer than two windows plus the grace, for ${rules.map((r) => r.algorithm).join(" + ")}`, async () => {
      const prefix = await exercise(rules, (offset) => T0 + offset);
      const keys = await h.keys(prefix);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        const ttl = await h.redis.pttl(key);
        expect(ttl, key).toBeGreaterThan(0);
        expect(ttl, key).toBeLessThanOrEqual(longest(rules));
      }
    });
  }

  // A key that expires before the decision's resetAt would forget requests the client was told still count.
  for (const algorithm of ALGORITHMS) {
    it(`Should keep a ${algorithm} key until the decision's reset, plus most of the grace for a lagging clock`, async () => {
      const limiter = h.limiter([smallRule(algorithm)]);
      const now = T0 + 250;
      const decision = await limiter.limit({ client: "grace", scope: "ttl", now });
      const keys = await h.keys(limiter.prefix);
      expect(keys.length).toBeGreaterThan(0);
      // A quarter of the grace is room for the real time the test itself takes.
      const least = decision.rules[0]!.resetAt - now + (3 * TTL_GRACE_MS) / 4;
      for (const key of keys) expect(await h.redis.pttl(key), key).toBeGreaterThanOrEqual(least);
    });
  }

  it("Should let every key expire once its windows have passed (50 ms windows, real clock)", async () => {
    const rules = ALGORITHMS.map((algorithm) => smallRule(algorithm, { name: algorithm, windowMs: 50 }));
    const prefix = await exercise(rules, () => Date.now());
    expect((await h.keys(prefix)).length).toBeGreaterThan(0);
    await vi.waitFor(async () => expect(await h.keys(prefix)).toEqual([]), { timeout: 10_000, interval: 100 });
  });
});
