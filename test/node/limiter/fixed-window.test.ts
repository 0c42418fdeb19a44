import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, T0, type Harness } from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const rule = { name: "default", algorithm: "fixed-window" as const, limit: 3, windowMs: 1_000 };

describe("fixed-window on Redis through the shim", () => {
  it("Should admit the limit, refuse the next, and report remaining and reset", async () => {
    const limiter = h.limiter([rule]);
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await limiter.limit({ client: "a", scope: "", now: T0 + 10 }));
    expect(seen.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(seen.map((d) => d.rules[0]!.remaining)).toEqual([2, 1, 0, 0]);
    expect(seen[3]).toMatchObject({ rule: "default", retryAfter: 1, rules: [{ resetAt: T0 + 1_000, limit: 3, windowMs: 1_000 }] });
  });
});
