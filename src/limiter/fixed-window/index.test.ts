import { describe, expect, it } from "vitest";
import { createFakeRunner } from "../../../test/fakes/fake-runner.ts";
import { createLimiter } from "../index.ts";
import { fixedWindow } from "./index.ts";

const now = 1_700_000_000_250;
const rule = { name: "default", algorithm: "fixed-window" as const, limit: 10, windowMs: 1_000 };

describe("fixed-window", () => {
  it("Should send its own script with the window index in the key and now, cost and the rule in ARGV", async () => {
    const runner = createFakeRunner(() => [1, 1, 0, 1, 7, 1_700_000_001_000, 0]);
    await createLimiter([rule], { runner, prefix: "rate" }).limit({ client: "203.0.113.7", scope: "api", cost: 3, now });
    expect(runner.calls).toEqual([
      {
        command: "evalsha",
        script: fixedWindow.script.sha1,
        keys: ["rate:list:{203.0.113.7}", "rate:fixed:{203.0.113.7}:api:1700000000"],
        args: [String(now), "3", "", "", "1", "fixed", "10", "1000", "10", "1"],
      },
    ]);
  });

  it("Should turn a refusal into remaining, reset and a retry time in ms and whole seconds", async () => {
    const runner = createFakeRunner(() => [0, 1, 0, 0, 0, 1_700_000_001_000, 750]);
    const decision = await createLimiter([rule], { runner, prefix: "rate" }).limit({ client: "c", scope: "", now });
    expect(decision).toEqual({
      allowed: false,
      rule: "default",
      rules: [{ rule: "default", limit: 10, remaining: 0, resetAt: 1_700_000_001_000, windowMs: 1_000 }],
      retryAt: now + 750,
      retryAfter: 1,
    });
  });

  it("Should start a new key when the window index changes", () => {
    expect(fixedWindow.keys("k", { limit: 1, windowMs: 1_000, burst: 1, buckets: 1 }, 1_999)).toEqual(["k:1"]);
    expect(fixedWindow.keys("k", { limit: 1, windowMs: 1_000, burst: 1, buckets: 1 }, 2_000)).toEqual(["k:2"]);
  });
});
