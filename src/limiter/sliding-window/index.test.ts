import { describe, expect, it } from "vitest";
import { createFakeRunner } from "../../../test/fakes/fake-runner.ts";
import { createLimiter, createMemoryLimiter } from "../index.ts";
import { slidingWindow } from "./index.ts";

const rule = { name: "api", algorithm: "sliding-window" as const, limit: 3, windowMs: 1_000, buckets: 10 };

describe("sliding-window", () => {
  it("Should name the key by the bucket width the script uses, rounded up, so that rules of different widths never share a key", () => {
    expect(slidingWindow.keys("k", { limit: 3, windowMs: 1_001, burst: 3, buckets: 10 }, 0)).toEqual(["k:101.10.1"]);
  });

  it("Should accept from 2 to 100 buckets, and refuse 1 and 101", () => {
    const deps = { runner: createFakeRunner(() => []), prefix: "rate" };
    for (const buckets of [2, 100]) expect(createLimiter([{ ...rule, buckets }], deps).rules).toHaveLength(1);
    for (const buckets of [1, 101]) expect(() => createLimiter([{ ...rule, buckets }], deps)).toThrow(`buckets must be from 2 to 100, got ${buckets}`);
  });

  it("Should pass one string, named with its layout (bucket width, buckets, count bytes), and the buckets as the rule's fifth argument", async () => {
    const runner = createFakeRunner(() => [1, 1, 0, 1, 2, 1_700_000_001_250, 0]);
    await createLimiter([rule], { runner, prefix: "rate" }).limit({ client: "c", scope: "s", now: 1_700_000_000_250 });
    expect(runner.calls[0]).toMatchObject({
      script: slidingWindow.script.sha1,
      keys: ["rate:list:{c}", "rate:buckets:{c}:s:100.10.1"],
      args: ["1700000000250", "1", "", "", "1", "buckets", "3", "1000", "3", "10"],
    });
  });

  it("Should let a bucket's requests leave one by one when it holds two, and say exactly when (model)", async () => {
    const limiter = createMemoryLimiter([rule]);
    const at = (now: number) => limiter.limit({ client: "c", scope: "", now });
    for (const now of [10, 50, 420]) expect((await at(now)).allowed).toBe(true);
    expect(await at(1_009)).toMatchObject({ allowed: false, retryAt: 1_010 });
    expect((await at(1_010)).allowed).toBe(true); // the request at 10 has left; the one at 50 has not
    expect(await at(1_011)).toMatchObject({ allowed: false, retryAt: 1_050 });
    expect((await at(1_050)).allowed).toBe(true);
  });

  it("Should count the cut bucket's middle requests until its last leaves, never fewer than are in the window (model)", async () => {
    const limiter = createMemoryLimiter([rule]);
    const at = (now: number) => limiter.limit({ client: "c", scope: "", now });
    for (const now of [10, 20, 90]) expect((await at(now)).allowed).toBe(true);
    expect((await at(1_015)).allowed).toBe(true); // 10 has left: 20, 90 and this one
    // At 1,025 the request at 20 has left too, but the bucket cannot tell it from the one at 90: both count until 1,090.
    expect(await at(1_025)).toMatchObject({ allowed: false, retryAt: 1_090 });
    expect((await at(1_090)).allowed).toBe(true);
  });
});
