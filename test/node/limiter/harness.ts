/**
 * @module Per-file test harness: a shim of our own in front of the test Redis (so its request
 * counters are this file's alone), the real runner over it, an ioredis connection to inspect keys
 * (PTTL, MEMORY USAGE), and a unique key prefix so that parallel files never collide.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { inject } from "vitest";
import { startShim, type Shim } from "../../../scripts/upstash-shim/index.ts";
import { createLimiter } from "../../../src/limiter/index.ts";
import type { Limiter, Rule, ScriptRunner } from "../../../src/limiter/types.ts";
import { createRedisRunner } from "../../../src/redis/client.ts";

export interface Harness {
  shim: Shim;
  runner: ScriptRunner;
  /** Direct Redis access for inspection only. */
  redis: Redis;
  /** A fresh key prefix, so each limiter starts with no counters. */
  prefix(): string;
  /** A limiter over the shim with a fresh prefix. */
  limiter(rules: Rule[]): Limiter & { prefix: string };
  /** Every key under `prefix`. */
  keys(prefix: string): Promise<string[]>;
  close(): Promise<void>;
}

export const TOKEN = "limiter-tests-token";

/**
 * Starts the harness on the test Redis, or on `target` (with `cluster`, a Redis Cluster's seed
 * node; `redis` is then that node alone).
 */
export async function startHarness(target: { redisUrl: string; cluster?: boolean } = { redisUrl: inject("redisUrl") }): Promise<Harness> {
  const { redisUrl, cluster } = target;
  const shim = await startShim({ redisUrl, cluster, token: TOKEN, port: 0 });
  const runner = createRedisRunner({ url: shim.url, token: TOKEN, timeoutMs: 10_000 });
  const redis = new Redis(redisUrl, { lazyConnect: false });
  const prefix = () => `t${randomUUID().slice(0, 8)}`;
  return {
    shim,
    runner,
    redis,
    prefix,
    limiter(rules) {
      const p = prefix();
      return Object.assign(createLimiter(rules, { runner, prefix: p }), { prefix: p });
    },
    async keys(p) {
      const found: string[] = [];
      let cursor = "0";
      do {
        const [next, batch] = await redis.scan(cursor, "MATCH", `${p}:*`, "COUNT", 1000);
        cursor = next;
        found.push(...batch);
      } while (cursor !== "0");
      return found.sort();
    },
    async close() {
      redis.disconnect();
      await shim.close();
    },
  };
}

/** A `now` well inside a window: tests pin edges relative to it. 1_700_000_000_000 is a multiple of every window used. */
export const T0 = 1_700_000_000_000;

/** How many decisions {@link hammer} makes. */
export const DECISIONS = 1_000;
const IN_FLIGHT = 50; // bounded load on a shared 2-core machine

/** {@link DECISIONS} decisions for one client at one pinned instant, at most {@link IN_FLIGHT} at a time; how many were allowed. */
export async function hammer(limiter: Limiter): Promise<number> {
  let started = 0;
  let allowed = 0;
  const worker = async () => {
    while (started < DECISIONS) {
      started++;
      if ((await limiter.limit({ client: "crowd", scope: "", now: T0 + 123 })).allowed) allowed++;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return allowed;
}
