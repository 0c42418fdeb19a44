import { describe, expect, it } from "vitest";
import { algorithms } from "../../../src/limiter/registry.ts";
import { replay, seededRandom, traceClients } from "./trace.ts";

const rule = { limit: 5, windowMs: 1_000, burst: 5, buckets: 32 };
const shape = { clients: 20, windows: 10, limit: 5, windowMs: 1_000, seed: 7, bursty: false };

describe("the long-trace simulation", () => {
  it("Should draw the same trace from the same seed, and another from another", () => {
    const times = (seed: number) => [...traceClients({ ...shape, seed })].map((c) => c.times.length);
    expect(times(7)).toEqual(times(7));
    expect(times(7)).not.toEqual(times(8));
    expect(seededRandom(1)()).toBe(seededRandom(1)());
  });

  it("Should find no error in the exact log, and never more than the limit in a window, by construction", () => {
    for (const client of traceClients({ ...shape, bursty: true })) {
      const errors = replay(algorithms["sliding-log"], client.times, rule, false);
      expect(errors).toMatchObject({ wronglyAllowed: 0, wronglyRefused: 0 });
      expect(errors.maxInWindow).toBeLessThanOrEqual(5);
    }
  });

  it("Should see fixed-window admit twice the limit within one window across an edge, each extra one wrongly allowed", () => {
    const edgeBurst = [...Array<number>(5).fill(999), ...Array<number>(5).fill(1_000)];
    expect(replay(algorithms["fixed-window"], edgeBurst, rule, false)).toEqual({
      requests: 10,
      admitted: 10,
      wronglyAllowed: 5,
      wronglyRefused: 0,
      maxInWindow: 10,
    });
  });

  it("Should count refused requests toward the rate when asked to, as Cloudflare does", () => {
    const steady = Array.from({ length: 20 }, (_, i) => i * 100); // 10 per second against 5
    expect(replay(algorithms["sliding-log"], steady, rule, true).maxInWindow).toBe(10);
    expect(replay(algorithms["sliding-log"], steady, rule, false).maxInWindow).toBe(5);
  });
});
