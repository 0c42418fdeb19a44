import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlgorithmName } from "../../../src/limiter/types.ts";
import { startHarness, T0, type Harness } from "./harness.ts";
import { ALGORITHMS } from "./rules.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/**
 * MEMORY USAGE (bytes, Redis's own estimate, key name and overhead included) of one client's keys
 * once the client has used its whole limit, spread over the window (the log holds one member per
 * request). For sliding-window-approx, both counters exist: the previous window was used too. For
 * sliding-window the quota is spread over the whole window, so that every bucket is in use (its
 * worst case); the others are filled within the first `limit` ms.
 */
async function bytesPerClient(algorithm: AlgorithmName, limit: number): Promise<number> {
  const windowMs = 3_600_000;
  const limiter = h.limiter([{ name: "default", algorithm, limit, windowMs }]);
  const chunk = Math.max(1, Math.floor(limit / 100));
  const spread = algorithm === "sliding-window" ? Math.floor(windowMs / limit) : 1; // ms between chunks
  const fill = async (start: number) => {
    for (let used = 0; used < limit; used += chunk) {
      await limiter.limit({ client: "198.51.100.23", scope: "", cost: Math.min(chunk, limit - used), now: start + used * spread });
    }
  };
  if (algorithm === "sliding-window-approx") await fill(T0 - windowMs + 1_000);
  await fill(T0 + 1_000);
  let total = 0;
  for (const key of await h.keys(limiter.prefix)) total += Number(await h.redis.call("MEMORY", "USAGE", key, "SAMPLES", "0"));
  return total;
}

describe("Memory per client (MEMORY USAGE at the limit)", () => {
  it("Should stay O(1) for the counters and GCRA, and O(limit) for the log, at limits 100 and 10,000", async () => {
    const rows: string[] = [];
    const measured: Record<string, [number, number]> = {};
    for (const algorithm of ALGORITHMS) {
      const small = await bytesPerClient(algorithm, 100);
      const large = await bytesPerClient(algorithm, 10_000);
      measured[algorithm] = [small, large];
      rows.push(`| ${algorithm} | ${small} B | ${large} B |`);
    }
    console.log(["memory per client, MEMORY USAGE:", "| algorithm | limit 100 | limit 10,000 |", ...rows].join("\n"));
    for (const algorithm of ["fixed-window", "sliding-window-approx", "token-bucket"]) {
      const [small, large] = measured[algorithm]!;
      expect(large).toBeLessThan(300);
      expect(large - small).toBeLessThan(16);
    }
    // 33 buckets in use (32 and the one the window's start cuts): within 320 B at either limit.
    const [bucketsSmall, bucketsLarge] = measured["sliding-window"]!;
    expect(bucketsSmall).toBeLessThanOrEqual(320);
    expect(bucketsLarge).toBeLessThanOrEqual(320);
    const [logSmall, logLarge] = measured["sliding-log"]!;
    expect(logSmall).toBeLessThan(100 * 64);
    expect(logLarge).toBeGreaterThan(10_000 * 16);
    expect(logLarge).toBeLessThan(10_000 * 160); // a skiplist node per request: about 130 B
  }, 120_000);
});
