import { describe, expect, it } from "vitest";
import { createFakeRunner } from "../../../test/fakes/fake-runner.ts";
import { createLimiter, createMemoryLimiter } from "../index.ts";
import { tokenBucket } from "./index.ts";

const rule = { name: "api", algorithm: "token-bucket" as const, limit: 3, windowMs: 1_000, burst: 5 };

describe("token-bucket", () => {
  it("Should send the burst as the fourth rule argument and report it as the limit", async () => {
    const runner = createFakeRunner(() => [1, 1, 0, 1, 4, 1_700_000_000_334, 0]);
    const decision = await createLimiter([rule], { runner, prefix: "rate" }).limit({ client: "c", scope: "", now: 1_700_000_000_000 });
    expect(runner.calls[0]).toMatchObject({
      script: tokenBucket.script.sha1,
      keys: ["rate:list:{c}", "rate:gcra:{c}"],
      args: ["1700000000000", "1", "", "", "1", "gcra", "3", "1000", "5", "1"],
    });
    expect(decision.rules[0]).toMatchObject({ limit: 5, remaining: 4 });
  });

  it("Should refill at exactly 3 per second without drifting, even though 1000/3 is not an integer (model)", async () => {
    const limiter = createMemoryLimiter([{ name: "api", algorithm: "token-bucket", limit: 3, windowMs: 1_000 }]);
    const admitted: number[] = [];
    for (let now = 0; now < 3_000; now++) if ((await limiter.limit({ client: "c", scope: "", now })).allowed) admitted.push(now);
    // The burst of 3, then one token every 333⅓ ms: at ceil(k × 1000 / 3).
    expect(admitted).toEqual([0, 1, 2, 334, 667, 1_000, 1_334, 1_667, 2_000, 2_334, 2_667]);
  });
});
