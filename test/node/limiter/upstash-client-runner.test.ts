import { Redis } from "@upstash/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedisServer, type RedisServer } from "../../../scripts/local/redis-server.ts";
import { createLimiter } from "../../../src/limiter/index.ts";
import type { Limiter } from "../../../src/limiter/types.ts";
import { startHarness, T0, TOKEN, type Harness } from "./harness.ts";
import { smallRule } from "./rules.ts";

// A Redis of this file's own, so that no other file has loaded the scripts: the first decision
// meets NOSCRIPT, as on a new database or after a restart.
let redis: RedisServer;
let h: Harness;
beforeAll(async () => {
  redis = await startRedisServer();
  h = await startHarness({ redisUrl: redis.url });
});
afterAll(async () => {
  await h?.close();
  await redis?.stop();
});

/** Three requests at one instant under a limit of 2: which were admitted. */
async function admitted(limiter: Limiter): Promise<boolean[]> {
  const out = [];
  for (let i = 0; i < 3; i++) out.push((await limiter.limit({ client: "203.0.113.7", scope: "api", now: T0 })).allowed);
  return out;
}

describe("@upstash/redis's own client as the limiter's runner", () => {
  // retries: 0, as README says: the client's default replays a lost answer, which counts twice.
  for (const enableAutoPipelining of [true, false]) {
    it(`Should load the script on NOSCRIPT and decide, with auto-pipelining ${enableAutoPipelining ? "on (its default)" : "off"}`, async () => {
      const runner = new Redis({ url: h.shim.url, token: TOKEN, enableAutoPipelining, retry: { retries: 0 } });
      await runner.scriptFlush();
      const limiter = createLimiter([smallRule("sliding-log", { limit: 2 })], { runner, prefix: h.prefix() });
      expect(await admitted(limiter)).toEqual([true, true, false]);
    });
  }
});
