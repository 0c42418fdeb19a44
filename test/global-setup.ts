/**
 * @module Vitest globalSetup (Node): starts what the tests talk to and hands the URLs to both
 * projects through `provide` (workers-sdk's hyperdrive example). Everything it starts, it stops.
 * `REDIS_URL` names a Redis to use instead of a fresh one; the tests then share it, so only set it
 * for a Redis you own.
 */
import type { TestProject } from "vitest/node";
import { startDemoOrigin } from "../scripts/local/demo-origin.ts";
import { startRedisServer } from "../scripts/local/redis-server.ts";

export default async function setup(project: TestProject) {
  const redis = process.env.REDIS_URL ? undefined : await startRedisServer();
  const origin = await startDemoOrigin({ port: 0 });
  project.provide("redisUrl", process.env.REDIS_URL ?? redis!.url);
  project.provide("originUrl", origin.url);
  return async () => {
    await origin.close();
    await redis?.stop();
  };
}
