import { describe, expect, it } from "vitest";
import { createFakeRunner } from "../../../test/fakes/fake-runner.ts";
import { createLimiter, createMemoryLimiter } from "../index.ts";
import { slidingLog } from "./index.ts";

const rule = { name: "login", algorithm: "sliding-log" as const, limit: 5, windowMs: 60_000 };

describe("sliding-log", () => {
  it("Should keep one sorted set per client, with no window index in its key", async () => {
    const runner = createFakeRunner(() => [1, 1, 0, 1, 4, 1_700_000_060_000, 0]);
    await createLimiter([rule], { runner, prefix: "rl" }).limit({ client: "c", scope: "", now: 1_700_000_000_000 });
    expect(runner.calls[0]).toMatchObject({
      script: slidingLog.script.sha1,
      keys: ["rl:list:{c}", "rl:sliding:{c}"],
      args: ["1700000000000", "1", "", "", "1", "sliding", "5", "60000", "5", "1"],
    });
  });

  it("Should count two requests in the same millisecond as two, and never charge a refused one (model)", async () => {
    const limiter = createMemoryLimiter([{ ...rule, limit: 2 }]);
    const at = (now: number, cost = 1) => limiter.limit({ client: "c", scope: "", cost, now }).then((d) => d.allowed);
    expect([await at(0), await at(0), await at(0)]).toEqual([true, true, false]);
    expect(await at(59_999, 2)).toBe(false);
    expect(await at(60_000, 2)).toBe(true);
  });
});
