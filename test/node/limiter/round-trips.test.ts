import { createHash, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScript } from "../../../src/limiter/run-script.ts";
import { startHarness, T0, type Harness } from "./harness.ts";
import { MIXED_RULES, smallRule } from "./rules.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** HTTP requests the shim received while `decisions` decisions were made, after a first one to cache the script. */
async function requestsPerDecision(limiter: ReturnType<Harness["limiter"]>, decisions: number) {
  await limiter.limit({ client: "rt", scope: "", now: T0 });
  h.shim.stats.reset();
  for (let i = 0; i < decisions; i++) await limiter.limit({ client: "rt", scope: "", now: T0 + i });
  return h.shim.stats.requests / decisions;
}

describe("Round trips, counted at the shim", () => {
  it("Should send a script once with EVAL after NOSCRIPT, then only EVALSHA", async () => {
    const source = `#!lua flags=allow-key-locking\nreturn ARGV[1] -- ${randomUUID()}`;
    const script = { source, sha1: createHash("sha1").update(source).digest("hex") };
    h.shim.stats.reset();
    expect(await runScript(h.runner, script, [], ["x"])).toBe("x");
    expect(h.shim.stats.requests).toBe(2);
    expect(await runScript(h.runner, script, [], ["y"])).toBe("y");
    expect(h.shim.stats.requests).toBe(3);
  });

  it("Should make one HTTP request per decision for one rule once the script is cached", async () => {
    const perDecision = await requestsPerDecision(h.limiter([smallRule("sliding-log", { limit: 1_000 })]), 20);
    console.log(`round trips per decision, one rule: ${perDecision} (bytes per decision: ${h.shim.stats.bytesIn / 20} in, ${h.shim.stats.bytesOut / 20} out)`);
    expect(perDecision).toBe(1);
  });

  it("Should make one HTTP request per decision for two rules, and for five of different algorithms", async () => {
    const two = await requestsPerDecision(h.limiter(MIXED_RULES.slice(0, 2).map((r) => ({ ...r, limit: 1_000 }))), 20);
    const five = await requestsPerDecision(h.limiter(MIXED_RULES.map((r) => ({ ...r, limit: 1_000, ...(r.burst && { burst: 1_000 }) }))), 20);
    console.log(`round trips per decision, two rules: ${two}; five rules: ${five}`);
    expect([two, five]).toEqual([1, 1]);
  });
});
