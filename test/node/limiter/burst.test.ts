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

  it("Should keep sliding-window within its stated bound (fewer than 2 x limit in any window) on a random trace, and print the error", async () => {
    const limit = 50;
    const limiter = h.limiter([smallRule("sliding-window", { limit })]);
    // 2,000 requests at random times over 20 windows: about twice the limit's rate.
    const times = fc.sample(fc.integer({ min: 0, max: 20 * WINDOW - 1 }), { numRuns: 2_000, seed: 42 }).sort((a, b) => a - b);
    const admitted: number[] = [];
    let falseRefusals = 0;
    let falseAdmissions = 0;
    for (const t of times) {
      const exact = inWindow(admitted, t) < limit;
      const { allowed } = await limiter.limit({ client: "trace", scope: "", now: T0 + t });
      if (allowed && !exact) falseAdmissions++;
      if (!allowed && exact) falseRefusals++;
      if (allowed) admitted.push(t);
    }
    const worst = Math.max(...admitted.map((t) => inWindow(admitted, t)));
    console.log(
      `sliding-window error (limit ${limit}/${WINDOW} ms, ${times.length} random requests over 20 windows): ` +
        `most admitted in any window ${worst} (${(((worst - limit) / limit) * 100).toFixed(1)}% over the limit); ` +
        `decisions differing from an exact sliding log: ${falseAdmissions} admitted too many, ${falseRefusals} refused too early ` +
        `(${(((falseAdmissions + falseRefusals) / times.length) * 100).toFixed(2)}% of ${times.length})`,
    );
    expect(worst).toBeLessThan(2 * limit);
  }, 60_000);
});
