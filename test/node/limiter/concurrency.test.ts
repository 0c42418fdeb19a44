import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Rule } from "../../../src/limiter/types.ts";
import { hammer, startHarness, type Harness } from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const exact: Rule[][] = [
  [{ name: "default", algorithm: "fixed-window", limit: 100, windowMs: 60_000 }],
  [{ name: "default", algorithm: "sliding-log", limit: 100, windowMs: 60_000 }],
  [{ name: "default", algorithm: "token-bucket", limit: 100, windowMs: 60_000 }],
  [
    { name: "minute", algorithm: "fixed-window", limit: 100, windowMs: 60_000 },
    { name: "hour", algorithm: "token-bucket", limit: 1_000, windowMs: 3_600_000 },
  ],
];

describe("1,000 concurrent decisions for one client, limit 100, within one window", () => {
  for (const rules of exact) {
    it(`Should allow exactly 100 with ${rules.map((r) => `${r.algorithm} ${r.limit}`).join(" + ")}`, async () => {
      expect(await hammer(h.limiter(rules))).toBe(100);
    }, 60_000);
  }
});
