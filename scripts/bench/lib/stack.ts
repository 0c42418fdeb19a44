/**
 * @module The local stack every section measures against: one throwaway `redis-server` (never the
 * shared one on 6379), the Upstash REST shim in front of it, and one origin. Everything started here is stopped by `close()`.
 */
import { randomBytes } from "node:crypto";
import { startRedisServer, type RedisServer } from "../../local/redis-server.ts";
import { startShim, type Shim } from "../../upstash-shim/index.ts";
import { startOrigin, type Origin } from "../../local/origin.ts";

/** The REST endpoint the Workers and clients talk to. */
export interface RestEndpoint {
  url: string;
  token: string;
  /** The shim's request and byte counters. */
  stats: Shim["stats"];
}

/** Redis, REST endpoint and origin, running. */
export interface Stack {
  redis: RedisServer;
  rest: RestEndpoint;
  origin: Origin;
  close(): Promise<void>;
}

/**
 * Starts the stack; on failure, stops whatever had started.
 *
 * @example
 * const stack = await startStack();
 * try { … } finally { await stack.close(); }
 */
export async function startStack(): Promise<Stack> {
  const token = randomBytes(16).toString("hex");
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch(() => undefined);
  };
  try {
    const redis = await startRedisServer();
    closers.push(() => redis.stop());
    const shim = await startShim({ redisUrl: redis.url, token, port: 0 });
    closers.push(() => shim.close());
    const origin = await startOrigin({ echo: false });
    closers.push(() => origin.close());
    return { redis, rest: { url: shim.url, token, stats: shim.stats }, origin, close };
  } catch (error) {
    await close();
    throw error;
  }
}
