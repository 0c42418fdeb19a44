import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Rule } from "../../../src/limiter/types.ts";
import { startHarness, T0, type Harness } from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const rules: Rule[] = [
  { name: "second", algorithm: "fixed-window", limit: 10, windowMs: 1_000 },
  { name: "log", algorithm: "sliding-log", limit: 10, windowMs: 1_000 },
  { name: "bucket", algorithm: "token-bucket", limit: 3, windowMs: 1_000 },
];

describe("Several rules in one script: all or nothing", () => {
  it("Should charge no rule when one refuses, whatever the cost, and name the refusing rule", async () => {
    const limiter = h.limiter(rules);
    const at = (cost: number) => limiter.limit({ client: "c", scope: "", cost, now: T0 });
    expect(await at(5)).toMatchObject({ allowed: false, rule: "bucket", rules: [{ remaining: 10 }, { remaining: 10 }, { remaining: 3 }] });
    expect(await at(2)).toMatchObject({ allowed: true, rule: "bucket", rules: [{ remaining: 8 }, { remaining: 8 }, { remaining: 1 }] });
    expect(await at(2)).toMatchObject({ allowed: false, rule: "bucket", rules: [{ remaining: 8 }, { remaining: 8 }, { remaining: 1 }] });
    expect((await h.keys(limiter.prefix)).length).toBe(3);
  });

  it("Should store nothing at all for a client whose first request is refused", async () => {
    const limiter = h.limiter(rules);
    expect((await limiter.limit({ client: "c", scope: "", cost: 4, now: T0 })).allowed).toBe(false);
    expect(await h.keys(limiter.prefix)).toEqual([]);
  });
});
