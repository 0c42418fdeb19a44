/**
 * @module Runs `redis-benchmark` (Debian package redis-tools) with one command against a Redis
 * server and reads its CSV line: the load generator Redis's own users measure Redis with.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** One redis-benchmark run. Latencies in ms (µs resolution). */
export interface RedisBenchmarkResult {
  rps: number;
  p50: number;
  p99: number;
}

/**
 * Sends `requests` copies of `command` from `clients` connections to `redisUrl`.
 *
 * @example
 * const { rps } = await redisBenchmark("redis://127.0.0.1:6390", 50, 10_000, ["EVALSHA", sha, "1", "k"]);
 */
export async function redisBenchmark(redisUrl: string, clients: number, requests: number, command: string[]): Promise<RedisBenchmarkResult> {
  const { hostname, port } = new URL(redisUrl);
  const { stdout } = await run("redis-benchmark", ["-h", hostname, "-p", port || "6379", "-c", String(clients), "-n", String(requests), "--csv", ...command], {
    maxBuffer: 1 << 20,
  }).catch((error: Error & { code?: string }) => {
    throw error.code === "ENOENT" ? new Error("redis-benchmark is not installed (Debian package redis-tools)") : error;
  });
  // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
  const [header, row] = stdout
    .trim()
    .split("\n")
    .slice(-2)
    .map((line) => line.split(",").map((cell) => cell.replace(/"/g, "")));
  const field = (name: string) => Number(row?.[header?.indexOf(name) ?? -1]);
  const result = { rps: field("rps"), p50: field("p50_latency_ms"), p99: field("p99_latency_ms") };
  if (!Object.values(result).every(Number.isFinite)) throw new Error(`redis-benchmark printed no CSV result:\n${stdout}`);
  return result;
}
