/**
 * @module `npm run measure:shim [-- --n 2000]`: what the Upstash REST shim adds to one decision.
 * Runs one EVALSHA of a small limiter-like script at concurrency 1, N times, against a throwaway
 * `redis-server`: directly with ioredis, and through the shim with `@upstash/redis` (keep-alive;
 * with its defaults, and with auto-pipelining and base64 off). Prints median and p90 per path and
 * the median added by the shim.
 */
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { Redis as UpstashRedis } from "@upstash/redis";
import { Redis as IoRedis } from "ioredis";
import { startRedisServer } from "./local/redis-server.ts";
import { startShim } from "./upstash-shim/index.ts";
import { sha1, stripUpstashFlags } from "./upstash-shim/scripts.ts";

const SCRIPT = `#!lua flags=allow-key-locking
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

async function sample(n: number, once: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(200, n); i++) await once(); // Warm-up: JIT, connections, script cache.
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await once();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const ms = (value: number) => `${value.toFixed(3)} ms`;

async function main() {
  const { values } = parseArgs({ options: { n: { type: "string", default: "2000" } } });
  const n = Number(values.n);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--n: invalid value "${values.n}" (expected a positive integer)`);
  const redis = await startRedisServer();
  const token = randomBytes(16).toString("hex");
  const shim = await startShim({ redisUrl: redis.url, token, port: 0 });
  const direct = new IoRedis(redis.url);
  try {
    // Redis itself never accepts the Upstash flag: ioredis runs the script the shim would send.
    const plain = stripUpstashFlags(SCRIPT)!;
    await direct.script("LOAD", plain);
    const viaDefaults = new UpstashRedis({ url: shim.url, token, enableTelemetry: false });
    const viaLean = new UpstashRedis({
      url: shim.url,
      token,
      enableTelemetry: false,
      enableAutoPipelining: false,
      responseEncoding: false,
      readYourWrites: false,
    });
    await viaDefaults.eval(SCRIPT, ["warm"], [60_000]); // Teaches the shim sha1(SCRIPT) → rewritten script.

    const rows: Array<[string, number[]]> = [
      ["direct (ioredis EVALSHA)", await sample(n, () => direct.evalsha(sha1(plain), 1, "measure:direct", 60_000))],
      ["shim, @upstash/redis defaults", await sample(n, () => viaDefaults.evalsha(sha1(SCRIPT), ["measure:defaults"], [60_000]))],
      ["shim, no auto-pipeline/base64/sync", await sample(n, () => viaLean.evalsha(sha1(SCRIPT), ["measure:lean"], [60_000]))],
    ];
    console.log(`One EVALSHA at concurrency 1, N=${n} per path (after 200 warm-up calls), Node ${process.version}:`);
    for (const [name, times] of rows) console.log(`  ${name.padEnd(36)} median ${ms(quantile(times, 0.5))}  p90 ${ms(quantile(times, 0.9))}`);
    const base = quantile(rows[0]![1], 0.5);
    for (const [name, times] of rows.slice(1)) console.log(`  added over direct (${name}): median +${ms(quantile(times, 0.5) - base)}`);
  } finally {
    direct.disconnect();
    await shim.close();
    await redis.stop();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
