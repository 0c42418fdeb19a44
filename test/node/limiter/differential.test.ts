import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryLimiter } from "../../../src/limiter/index.ts";
import type { Rule } from "../../../src/limiter/types.ts";
import { startHarness, T0, type Harness } from "./harness.ts";
import { ALGORITHMS, MIXED_RULES, smallRule } from "./rules.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** A trace: requests from a few clients, each some ms after the previous, each of some cost. */
const trace = fc.array(
  fc.record({
    client: fc.constantFrom("a", "b", "c"),
    gapMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 1_500 })),
    // Mostly small; sometimes the whole limit (4) or burst (6) and beyond, whose retry times differ.
    cost: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 7 })),
  }),
  { minLength: 1, maxLength: 60 },
);

async function runBoth(rules: Rule[], requests: { client: string; gapMs: number; cost: number }[], startOffset: number) {
  const redis = h.limiter(rules);
  const model = createMemoryLimiter(rules, { prefix: redis.prefix });
  let now = T0 + startOffset;
  for (const { client, gapMs, cost } of requests) {
    now += gapMs;
    const request = { client, scope: "diff", cost, now };
    const [fromRedis, fromModel] = [await redis.limit(request), await model.limit(request)];
    expect(fromRedis, `at ${now - T0} ms, ${client}, cost ${cost}`).toEqual(fromModel);
  }
}

// Each property sends up to 2,400 requests one after the other through the shim: seconds on a busy
// machine, past Vitest's default 5 s.
describe("Lua on Redis and the TypeScript model", { timeout: 60_000 }, () => {
  for (const algorithm of ALGORITHMS) {
    it(`Should give identical decisions for ${algorithm} on random traces of (client, time, cost)`, async () => {
      await fc.assert(
        fc.asyncProperty(trace, fc.integer({ min: 0, max: 999 }), (requests, offset) => runBoth([smallRule(algorithm)], requests, offset)),
        { numRuns: 40 },
      );
    });
  }

  it("Should give identical decisions for sliding-window with few buckets, when Workers' clocks disagree by up to 1.5 s", async () => {
    const lagging = fc.array(
      fc.record({ client: fc.constantFrom("a", "b"), gapMs: fc.integer({ min: -1_500, max: 1_500 }), cost: fc.integer({ min: 1, max: 3 }) }),
      { minLength: 1, maxLength: 60 },
    );
    await fc.assert(
      fc.asyncProperty(lagging, fc.constantFrom(2, 3, 7), (requests, buckets) => runBoth([smallRule("sliding-window", { buckets })], requests, 5_000)),
      { numRuns: 40 },
    );
  });

  it("Should give identical decisions for a route mixing all five algorithms", async () => {
    await fc.assert(
      fc.asyncProperty(trace, fc.integer({ min: 0, max: 4_999 }), (requests, offset) => runBoth(MIXED_RULES, requests, offset)),
      { numRuns: 40 },
    );
  });
});
