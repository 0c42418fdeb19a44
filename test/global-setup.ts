/**
 * @module Vitest globalSetup (Node): starts what the tests talk to and hands the URLs to both
 * projects through `provide` (workers-sdk's hyperdrive example). Everything it starts, it stops.
 * `RATEWALL_TEST_REDIS_URL` names a Redis to use instead of a fresh one; the tests then write to
 * it, so only set it for a Redis you can spare (a name of its own: a `REDIS_URL` in the shell is
 * never used).
 */
import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { startOrigin } from "../scripts/local/origin.ts";
import { startRedisServer } from "../scripts/local/redis-server.ts";
import { startShim } from "../scripts/upstash-shim/index.ts";

export default async function setup(project: TestProject) {
  const redis = process.env.RATEWALL_TEST_REDIS_URL ? undefined : await startRedisServer();
  const redisUrl = process.env.RATEWALL_TEST_REDIS_URL ?? redis!.url;
  const token = randomBytes(16).toString("hex");
  const shim = await startShim({ redisUrl, token, port: 0 });
  const origin = await startOrigin();
  project.provide("redisUrl", redisUrl);
  project.provide("upstashUrl", shim.url);
  project.provide("upstashToken", token);
  project.provide("originUrl", origin.url);
  return async () => {
    await origin.close();
    await shim.close();
    await redis?.stop();
  };
}
