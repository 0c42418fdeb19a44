/**
 * @module How big a run is. `full` is the committed report: about a quarter of an hour on a
 * 2-core machine (bench/README.md gives each run's time), mostly the long traces and the
 * throughput section's 4-second rounds after a 2,000-request warm-up per Worker and concurrency.
 * Shorter rounds measure the warm-up itself (every contender speeds up
 * round after round). `quick` takes a minute or two, `smoke` is the smallest run that still
 * exercises every section (the test in `npm test`).
 */

/** Sizes of every section for one run. */
export interface Profile {
  name: "full" | "quick" | "smoke";
  /** `wrangler` builds exactly what deploys (seconds per Worker); `esbuild` the same, faster. */
  bundler: "wrangler" | "esbuild";
  roundTrips: { decisions: number };
  /** `warmupRequests`: unrecorded, per Worker and concurrency, before the interleaved rounds. */
  throughput: { concurrency: number[]; rounds: number; seconds: number; warmupRequests: number };
  /** Requests per round and Worker, in interleaved rounds, with every outbound fetch answered in-process. */
  cpu: { requests: number; rounds: number; warmupRequests: number };
  /**
   * One HTTP load generator per shim, `redis-benchmark` for direct Redis: `seconds` per shim
   * round, `redisRequests` per redis-benchmark round (it counts, it does not time), and an
   * unrecorded warm-up of `warmupSeconds` per shim and concurrency.
   */
  shimVsRedis: { concurrency: number[]; rounds: number; seconds: number; redisRequests: number; warmupSeconds: number };
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
    throughput: { concurrency: [1, 10, 50], rounds: 5, seconds: 4, warmupRequests: 2000 },
    // Rounds of 6,000 requests (under a second) were bimodal, some rounds half again as costly as
    // others in the same process, and ratios spread 0.55–1.44; see docs/performance.md, entry 14.
    cpu: { requests: 20_000, rounds: 9, warmupRequests: 10_000 },
    shimVsRedis: { concurrency: [1, 50], rounds: 5, seconds: 2, redisRequests: 40_000, warmupSeconds: 4 },
    accuracy: { requests: 2000, concurrency: 200, limit: 100 },
    edgeBurst: { limit: 10, windowMs: 1000, ratePerSecond: 40, durationMs: 3500 },
    memory: { limits: [100, 10_000] },
    trace: { clients: 2_000, windows: 60, limit: 50, windowMs: 60_000 },
  },
  quick: {
    name: "quick",
    bundler: "esbuild",
    roundTrips: { decisions: 3 },
    throughput: { concurrency: [10], rounds: 2, seconds: 0.5, warmupRequests: 200 },
    cpu: { requests: 1000, rounds: 3, warmupRequests: 300 },
    shimVsRedis: { concurrency: [1, 50], rounds: 2, seconds: 0.5, redisRequests: 20_000, warmupSeconds: 1 },
    accuracy: { requests: 400, concurrency: 40, limit: 100 },
    edgeBurst: { limit: 10, windowMs: 1000, ratePerSecond: 40, durationMs: 3500 },
    memory: { limits: [100] },
    trace: { clients: 100, windows: 15, limit: 50, windowMs: 60_000 },
  },
  smoke: {
    name: "smoke",
    bundler: "esbuild",
    roundTrips: { decisions: 2 },
    throughput: { concurrency: [1], rounds: 1, seconds: 0.2, warmupRequests: 10 },
    cpu: { requests: 50, rounds: 1, warmupRequests: 10 },
    shimVsRedis: { concurrency: [1, 50], rounds: 1, seconds: 0.2, redisRequests: 2_000, warmupSeconds: 0.2 },
    accuracy: { requests: 40, concurrency: 10, limit: 10 },
    edgeBurst: { limit: 5, windowMs: 500, ratePerSecond: 20, durationMs: 1200 },
    memory: { limits: [10] },
    trace: { clients: 12, windows: 4, limit: 50, windowMs: 60_000 },
  },
};
