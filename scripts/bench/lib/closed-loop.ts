/**
 * @module A closed-loop load driver for in-process clients (an HTTP agent, an ioredis
 * connection): `concurrency` loops each await one operation after another for a fixed time, and
 * every operation's latency is kept, in µs resolution (autocannon's percentiles are whole ms).
 */
import { percentile } from "./stats.ts";

/** What a closed-loop run measured. Latencies in ms. */
export interface LoopResult {
  operations: number;
  rps: number;
  p50: number;
  p99: number;
}

/**
 * Runs `operation` from `concurrency` loops for `seconds`.
 *
 * @example
 * const { rps, p50 } = await closedLoop(10, 1, () => redis.ping());
 */
export async function closedLoop(concurrency: number, seconds: number, operation: () => Promise<unknown>): Promise<LoopResult> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      await operation();
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsed = (performance.now() - started) / 1000;
  return {
    operations: latencies.length,
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}
