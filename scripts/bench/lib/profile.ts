/**
 * @module How big a run is. `full` is the committed report (a few minutes on a 2-core machine),
 * `quick` takes seconds, `smoke` is the smallest run that still exercises every section (the
 * test in `npm test`).
 */

/** Sizes of every section for one run. */
export interface Profile {
  name: "full" | "quick" | "smoke";
  /** `wrangler` builds exactly what deploys (seconds per Worker); `esbuild` the same, faster. */
  bundler: "wrangler" | "esbuild";
  roundTrips: { decisions: number };
  throughput: { concurrency: number[]; rounds: number; seconds: number };
  shimVsRedis: { concurrency: number[]; rounds: number; seconds: number };
  accuracy: { requests: number; concurrency: number; limit: number };
  edgeBurst: { limit: number; windowMs: number; ratePerSecond: number; durationMs: number };
  memory: { limits: number[] };
  /** The long trace through the models: clients, length in windows, and the rule (limit per window). */
  trace: { clients: number; windows: number; limit: number; windowMs: number };
}

/** The three sizes. */
export const profiles: Record<Profile["name"], Profile> = {
  full: {
    name: "full",
    bundler: "wrangler",
    roundTrips: { decisions: 20 },
    throughput: { concurrency: [1, 10, 50], rounds: 5, seconds: 1 },
    shimVsRedis: { concurrency: [1, 10, 50], rounds: 3, seconds: 1 },
    accuracy: { requests: 2000, concurrency: 200, limit: 100 },
    edgeBurst: { limit: 10, windowMs: 1000, ratePerSecond: 40, durationMs: 3500 },
    memory: { limits: [100, 10_000] },
    trace: { clients: 2_000, windows: 60, limit: 50, windowMs: 60_000 },
  },
  quick: {
    name: "quick",
    bundler: "esbuild",
    roundTrips: { decisions: 3 },
    throughput: { concurrency: [10], rounds: 2, seconds: 0.5 },
    shimVsRedis: { concurrency: [10], rounds: 2, seconds: 0.3 },
    accuracy: { requests: 400, concurrency: 40, limit: 100 },
    edgeBurst: { limit: 10, windowMs: 1000, ratePerSecond: 40, durationMs: 3500 },
    memory: { limits: [100] },
    trace: { clients: 100, windows: 15, limit: 50, windowMs: 60_000 },
  },
  smoke: {
    name: "smoke",
    bundler: "esbuild",
    roundTrips: { decisions: 2 },
    throughput: { concurrency: [1], rounds: 1, seconds: 0.2 },
    shimVsRedis: { concurrency: [1], rounds: 1, seconds: 0.1 },
    accuracy: { requests: 40, concurrency: 10, limit: 10 },
    edgeBurst: { limit: 5, windowMs: 500, ratePerSecond: 20, durationMs: 1200 },
    memory: { limits: [10] },
    trace: { clients: 12, windows: 4, limit: 50, windowMs: 60_000 },
  },
};
