import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, T0, type Harness } from "./harness.ts";
import { smallRule } from "./rules.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const WINDOW = 1_000;

/** Admitted times within (t - WINDOW, t]. */
const inWindow = (admitted: number[], t: number) => admitted.filter((a) => a > t - WINDOW && a <= t).length;

describe("The burst at a window edge", () => {
  it("Should let fixed-window admit up to twice the limit across an edge, and no more", async () => {
    const limiter = h.limiter([smallRule("fixed-window", { limit: 5 })]);
    const decide = (at: number) => limiter.limit({ client: "burst", scope: "", now: T0 + at }).then((d) => d.allowed);
    const atEnd = await Promise.all(Array.from({ length: 6 }, () => decide(999)));
    const atStart = await Promise.all(Array.from({ length: 6 }, () => decide(1_000)));
    expect(atEnd.filter(Boolean).length + atStart.filter(Boolean).length).toBe(10);
  });

  it("Should never let sliding-log admit more than the limit in any window, and admit whenever the window has room", async () => {
    const arrivals = fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 80 }).map((a) => a.sort((x, y) => x - y));
    await fc.assert(
      fc.asyncProperty(arrivals, async (times) => {
        const limiter = h.limiter([smallRule("sliding-log", { limit: 5 })]);
        const admitted: number[] = [];
        for (const t of times) {
          const room = inWindow(admitted, t) < 5;
          const { allowed } = await limiter.limit({ client: "p", scope: "", now: T0 + t });
          expect(allowed).toBe(room);
          if (allowed) admitted.push(t);
        }
        for (const t of admitted) expect(inWindow(admitted, t)).toBeLessThanOrEqual(5);
      }),
      { numRuns: 40 },
    );
  });

  it("Should never let sliding-window admit more than the limit in any window, whatever the arrivals", async () => {
    const arrivals = fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 80 }).map((a) => a.sort((x, y) => x - y));
    await fc.assert(
      fc.asyncProperty(arrivals, fc.constantFrom(2, 5, 10), async (times, buckets) => {
        const limiter = h.limiter([smallRule("sliding-window", { limit: 5, buckets })]);
        const admitted: number[] = [];
        for (const t of times) if ((await limiter.limit({ client: "p", scope: "", now: T0 + t })).allowed) admitted.push(t);
        for (const t of admitted) expect(inWindow(admitted, t)).toBeLessThanOrEqual(5);
      }),
      { numRuns: 40 },
    );
  });

  it("Should decide exactly as the log does when no bucket of the sliding window holds more than two requests", async () => {
    // 10 buckets of 100 ms; two arrivals at most in each 100 ms.
    const arrivals = fc
      .uniqueArray(fc.integer({ min: 0, max: 99 }), { minLength: 1, maxLength: 60 })
      .chain((buckets) =>
        fc.tuple(...buckets.map((b) => fc.tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 })).map(([x, y]) => [b * 100 + x, b * 100 + y]))),
      );
    await fc.assert(
      fc.asyncProperty(arrivals, async (pairs) => {
        const times = pairs.flat().sort((x, y) => x - y);
        const limiter = h.limiter([smallRule("sliding-window", { limit: 5, buckets: 10 })]);
        const admitted: number[] = [];
        for (const t of times) {
          const room = inWindow(admitted, t) < 5;
          const { allowed } = await limiter.limit({ client: "p", scope: "", now: T0 + t });
          expect(allowed, `at ${t}`).toBe(room);
          if (allowed) admitted.push(t);
        }
      }),
      { numRuns: 30 },
    );
  });

  for (const requests of [1_000, 2_000]) {
    it(`Should keep sliding-window-approx within its stated error bound on a random trace at ${requests / 1_000}x the limit's rate, and print the error`, async () => {
      const { worstError, worst, falseAdmissions, falseRefusals } = await slidingWindowTrace(50, requests);
      console.log(
        `sliding-window-approx error (limit 50/${WINDOW} ms, ${requests} random requests over 20 windows): ` +
          `largest |estimate - true count| ${worstError.toFixed(2)} requests (${((worstError / 50) * 100).toFixed(1)}% of the limit); ` +
          `most admitted in any window ${worst} (${(((worst - 50) / 50) * 100).toFixed(1)}% over the limit); ` +
          `decisions differing from an exact sliding log: ${falseAdmissions} admitted too many, ${falseRefusals} refused too early`,
      );
      expect(worst).toBeLessThan(2 * 50);
    }, 60_000);
  }
});

/**
 * Runs `requests` requests at uniformly random times over 20 windows through a sliding-window-approx
 * limiter, checks the stated bound at every decision (src/limiter/sliding-window-approx/index.ts:
 * |estimate - true| <= previous x max(e, W - e) / W) and measures how far it is from exact.
 */
async function slidingWindowTrace(limit: number, requests: number) {
  const limiter = h.limiter([smallRule("sliding-window-approx", { limit })]);
  const times = fc.sample(fc.noBias(fc.integer({ min: 0, max: 20 * WINDOW - 1 })), { numRuns: requests, seed: 42 }).sort((a, b) => a - b);
  const admitted: number[] = [];
  const count = (from: number, to: number) => admitted.filter((a) => a >= from && a < to).length;
  let [worstError, falseAdmissions, falseRefusals] = [0, 0, 0];
  for (const t of times) {
    const start = Math.floor(t / WINDOW) * WINDOW;
    const [previous, current, e, exact] = [count(start - WINDOW, start), count(start, t + 1), t - start, inWindow(admitted, t)];
    const scaledError = Math.abs(previous * (WINDOW - e) + (current - exact) * WINDOW); // requests x ms
    expect(scaledError).toBeLessThanOrEqual(previous * Math.max(e, WINDOW - e));
    worstError = Math.max(worstError, scaledError / WINDOW);
    const { allowed } = await limiter.limit({ client: "trace", scope: "", now: T0 + t });
    if (allowed && exact >= limit) falseAdmissions++;
    if (!allowed && exact < limit) falseRefusals++;
    if (allowed) admitted.push(t);
  }
  const worst = Math.max(...admitted.map((t) => inWindow(admitted, t)));
  return { worstError, worst, falseAdmissions, falseRefusals };
}
