import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Limiter, Rule } from "../../../src/limiter/types.ts";
import { startHarness, T0, type Harness } from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const DECISIONS = 1_000;
const IN_FLIGHT = 50; // bounded load on a shared 2-core machine

/** 1,000 decisions for one client at one pinned instant, at most {@link IN_FLIGHT} at a time. */
async function hammer(limiter: Limiter): Promise<number> {
  let started = 0;
  let allowed = 0;
  const worker = async () => {
    while (started < DECISIONS) {
      started++;
      if ((await limiter.limit({ client: "crowd", scope: "", now: T0 + 123 })).allowed) allowed++;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return allowed;
}

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
