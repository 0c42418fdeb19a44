import { describe, expect, it } from "vitest";
import { createFakeRunner } from "../../../test/fakes/fake-runner.ts";
import { createLimiter, createMemoryLimiter } from "../index.ts";
import { slidingWindowApprox } from "./index.ts";

const rule = { name: "api", algorithm: "sliding-window-approx" as const, limit: 10, windowMs: 1_000 };

describe("sliding-window-approx", () => {
  it("Should pass this window's counter and the previous one's as KEYS", async () => {
    const runner = createFakeRunner(() => [1, 1, 0, 1, 9, 1_700_000_002_000, 0]);
    await createLimiter([rule], { runner, prefix: "rate" }).limit({ client: "c", scope: "s", now: 1_700_000_000_250 });
    expect(runner.calls[0]).toMatchObject({
      script: slidingWindowApprox.script.sha1,
      keys: ["rate:list:{c}", "rate:weighted:{c}:s:1700000000", "rate:weighted:{c}:s:1699999999"],
      args: ["1700000000250", "1", "", "", "1", "weighted", "10", "1000", "10", "1"],
    });
  });

  it("Should weigh the previous window by the part of it the sliding window still covers (model)", async () => {
    const limiter = createMemoryLimiter([rule]);
    const at = (now: number, cost = 1) => limiter.limit({ client: "c", scope: "", cost, now });
    expect((await at(900, 10)).allowed).toBe(true);
    // 250 ms into the next window, 75% of the previous 10 still count: 7.5, so 2 more fit, not 3.
    expect((await at(1_250, 3)).allowed).toBe(false);
    expect(await at(1_250, 2)).toMatchObject({ allowed: true, rules: [{ remaining: 0 }] });
  });
});
