/**
 * @module The local stack every section measures against: one throwaway `redis-server` (never the
 * shared one on 6379), the Upstash REST shim in front of it, and one origin. Everything started here is stopped by `close()`.
 */
import { randomBytes } from "node:crypto";
import { startRedisServer, type RedisServer } from "../../local/redis-server.ts";
import { startBenchOrigin, type BenchOrigin } from "./origin.ts";
import type { ProjectModules, RestStats } from "./project-modules.ts";

/** The REST endpoint the Workers and clients talk to. */
export interface RestEndpoint {
  url: string;
  token: string;
  /** Undefined when the shim does not count (then round trips cannot be measured). */
  stats?: RestStats;
}

/** Redis, REST endpoint and origin, running. */
export interface Stack {
  redis: RedisServer;
  rest: RestEndpoint;
  origin: BenchOrigin;
  close(): Promise<void>;
}

/**
 * Starts the stack; on failure, stops whatever had started.
 *
 * @example
 * const stack = await startStack(modules);
 * try { … } finally { await stack.close(); }
 */
export async function startStack(modules: ProjectModules): Promise<Stack> {
  const token = randomBytes(16).toString("hex");
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch(() => undefined);
  };
  try {
    const redis = await startRedisServer();
    closers.push(() => redis.stop());
    if (!modules.startShim) throw new Error(`the bench needs the Upstash REST shim: ${modules.missing.startShim}`);
    const shim = await modules.startShim({ redisUrl: redis.url, token, port: 0 });
    closers.push(() => shim.close());
    const origin = await startBenchOrigin();
    closers.push(() => origin.close());
    const rest: RestEndpoint = { url: shim.url, token };
    if (shim.stats) rest.stats = shim.stats;
    return { redis, rest, origin, close };
  } catch (error) {
    await close();
    throw error;
  }
}
