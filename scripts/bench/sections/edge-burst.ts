/**
 * @module Section 5: the burst at the edge, as a picture. With a simulated clock (each decision's
 * `now` pinned), one client sends at a steady rate above its limit across several window edges,
 * through ratewall's limiter and the shim; admitted requests are counted per 100 ms for each
 * algorithm. The fixed window shows the seed article's flaw: up to twice the limit within one
 * window's length, around an edge.
 */
import { createLimiter } from "../../../src/limiter/index.ts";
import type { AlgorithmName } from "../../../src/limiter/types.ts";
import { createRedisRunner } from "../../../src/redis/client.ts";
import { type BenchContext, measured, type Outcome } from "../lib/context.ts";
import { algorithms } from "../lib/scenarios.ts";

/** Admitted requests in one 100 ms bucket. */
export interface EdgeBurstPoint {
  algorithm: AlgorithmName;
  /** Bucket start, ms since the client's first request. */
  t: number;
  admitted: number;
}

/** One algorithm's totals. */
export interface EdgeBurstSummary {
  algorithm: AlgorithmName;
  admitted: number;
  /** The most requests admitted within any span of one window's length. */
  maxInAnyWindow: number;
}

/** Section 5's data. */
export interface EdgeBurstData {
  limit: number;
  windowMs: number;
  ratePerSecond: number;
  durationMs: number;
  /** Where the first request falls inside a fixed window, ms after its start. */
  offsetMs: number;
  bucketMs: 100;
  points: EdgeBurstPoint[];
  summary: EdgeBurstSummary[];
}

/**
 * Replays the steady client against each algorithm.
 *
 * @example
 * const outcome = await measureEdgeBurst(ctx);
 */
export async function measureEdgeBurst(ctx: BenchContext): Promise<Outcome<EdgeBurstData>> {
  const { limit, windowMs, ratePerSecond, durationMs } = ctx.profile.edgeBurst;
  const runner = createRedisRunner({ url: ctx.stack.rest.url, token: ctx.upstream.token, timeoutMs: 5000 });
  // Start half-way through a window, near real time so that TTLs set from `now` stay sensible.
  const offsetMs = windowMs / 2;
  const start = Math.ceil(Date.now() / windowMs) * windowMs + offsetMs;
  const gapMs = 1000 / ratePerSecond;
  const points: EdgeBurstPoint[] = [];
  const summary: EdgeBurstSummary[] = [];
  for (const algorithm of algorithms) {
    ctx.progress.step(`edge burst: ${algorithm}`);
    const limiter = createLimiter([{ name: "default", algorithm, limit, windowMs }], { runner, prefix: `${ctx.keyPrefix}edge` });
    const admittedAt: number[] = [];
    for (let t = 0; t < durationMs; t += gapMs) {
      const decision = await limiter.limit({ client: `edge-${algorithm}`, scope: "", now: Math.round(start + t) });
      if (decision.allowed) admittedAt.push(t);
    }
    for (let bucket = 0; bucket < durationMs; bucket += 100) {
      points.push({ algorithm, t: bucket, admitted: admittedAt.filter((t) => t >= bucket && t < bucket + 100).length });
    }
    const maxInAnyWindow = Math.max(0, ...admittedAt.map((t0) => admittedAt.filter((t) => t >= t0 && t < t0 + windowMs).length));
    summary.push({ algorithm, admitted: admittedAt.length, maxInAnyWindow });
  }
  return measured({ limit, windowMs, ratePerSecond, durationMs, offsetMs, bucketMs: 100, points, summary });
}
