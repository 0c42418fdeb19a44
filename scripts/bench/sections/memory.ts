/**
 * @module Section 6: memory per client in Redis. One client spends its whole quota (`limit`
 * decisions within one window; for sliding-window spread over the window, its worst case) under each algorithm; then `MEMORY USAGE … SAMPLES 0` (exact) is
 * summed over that client's keys. Measured for ratewall's limiter and, with the same rules, for
 * `@upstash/ratelimit` in Node, both through the shim.
 */
import { Ratelimit } from "@upstash/ratelimit";
import { Redis as UpstashRedis } from "@upstash/redis";
import { Redis } from "ioredis";
import { createLimiter } from "../../../src/limiter/index.ts";
import type { AlgorithmName } from "../../../src/limiter/types.ts";
import { createRedisRunner } from "../../../src/redis/client.ts";
import { type BenchContext, measured, type Outcome } from "../lib/context.ts";
import { algorithms, peerAlgorithms } from "../lib/scenarios.ts";

/** One client's footprint. */
export interface MemoryRow {
  contender: "ratewall" | "peer";
  algorithm: AlgorithmName;
  limit: number;
  /** After one decision: what an occasional client costs. */
  bytesAfterOne: number;
  /** After `limit` decisions in one window: the worst case. */
  bytesAtLimit: number;
  keys: number;
}

/** Section 6's data. */
export interface MemoryData {
  windowMs: number;
  rows: MemoryRow[];
}

type Decide = (n: number) => Promise<void>;

const windowMs = 3_600_000;

/**
 * Fills one client per (limiter, algorithm, limit) and measures its keys.
 *
 * @example
 * const outcome = await measureMemory(ctx);
 */
export async function measureMemory(ctx: BenchContext): Promise<Outcome<MemoryData>> {
  const redis = new Redis(ctx.stack.redis.url);
  const rows: MemoryRow[] = [];
  try {
    const measure = async (contender: MemoryRow["contender"], algorithm: AlgorithmName, limit: number, pattern: string, decide: Decide) => {
      ctx.progress.step(`memory: ${contender} ${algorithm} at limit ${limit}`);
      await decide(1);
      const afterOne = await footprint(redis, pattern);
      await decide(limit - 1);
      const atLimit = await footprint(redis, pattern);
      rows.push({ contender, algorithm, limit, bytesAfterOne: afterOne.bytes, bytesAtLimit: atLimit.bytes, keys: atLimit.keys });
    };
    for (const limit of ctx.profile.memory.limits) {
      const runner = createRedisRunner({ url: ctx.stack.rest.url, token: ctx.upstream.token, timeoutMs: 5000 });
      for (const algorithm of algorithms) {
        const limiter = createLimiter([{ name: "default", algorithm, limit, windowMs }], { runner, prefix: `${ctx.keyPrefix}mem` });
        const client = `mem-${algorithm}-${limit}`;
        const start = Date.now();
        // sliding-window's worst case is every bucket in use: its quota is spread over the whole window.
        const spread = algorithm === "sliding-window" ? Math.floor(windowMs / limit) : 1; // ms between decisions
        let sent = 0;
        await measure("ratewall", algorithm, limit, `${ctx.keyPrefix}mem*${client}*`, (n) =>
          inParallel(n, 32, () => limiter.limit({ client, scope: "", now: start + spread * sent++ }).then(() => undefined)),
        );
      }
      const upstash = new UpstashRedis({ url: ctx.stack.rest.url, token: ctx.upstream.token });
      for (const algorithm of peerAlgorithms) {
        const prefix = `${ctx.keyPrefix}peermem-${algorithm}-${limit}`;
        const limiter = new Ratelimit({ redis: upstash, limiter: peerLimiter(algorithm, limit), prefix });
        await measure("peer", algorithm, limit, `${prefix}:*`, (n) => inParallel(n, 32, () => limiter.limit("client").then(() => undefined)));
      }
    }
  } finally {
    redis.disconnect();
  }
  return measured({ windowMs, rows });
}

function peerLimiter(algorithm: AlgorithmName, limit: number): Ratelimit["limiter"] {
  if (algorithm === "fixed-window") return Ratelimit.fixedWindow(limit, `${windowMs} ms`);
  if (algorithm === "sliding-window") return Ratelimit.slidingWindow(limit, `${windowMs} ms`);
  return Ratelimit.tokenBucket(limit, `${windowMs} ms`, limit);
}

async function scan(redis: Redis, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== "0");
  return keys;
}

/** The keys matching `pattern`: how many, and their `MEMORY USAGE` summed. */
async function footprint(redis: Redis, pattern: string): Promise<{ bytes: number; keys: number }> {
  const keys = await scan(redis, pattern);
  let bytes = 0;
  for (const key of keys) bytes += Number(await redis.call("MEMORY", "USAGE", key, "SAMPLES", "0"));
  return { bytes, keys: keys.length };
}

/** Runs `task` `count` times with at most `concurrency` in flight. */
async function inParallel(count: number, concurrency: number, task: () => Promise<void>): Promise<void> {
  let started = 0;
  const lane = async () => {
    while (started < count) {
      started++;
      await task();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}
