/**
 * @module Starts the peer's shim, `@humanwhocodes/upstash-redis-server`, as its README says a
 * user starts it (its `upstash-redis-server` bin, configured by `URS_TOKEN`, `PORT` and
 * `REDIS_URL`), in its own process, and stops it.
 */
import { spawn } from "node:child_process";
import { freePort, stopChild } from "../../local/redis-server.ts";
import { fromRoot, repoRoot } from "./paths.ts";
import type { ShimProcess } from "../../local/shim-process.ts";

/**
 * Spawns the peer shim for `redisUrl` and resolves once it answers a `PING` with `token`.
 *
 * @example
 * const peer = await spawnPeerShim(redis.url, token);
 * try { … } finally { await peer.stop(); }
 */
export async function spawnPeerShim(redisUrl: string, token: string, timeoutMs = 20_000): Promise<Pick<ShimProcess, "url" | "pid" | "stop">> {
  const port = await freePort();
  const child = spawn(process.execPath, [fromRoot("node_modules/@humanwhocodes/upstash-redis-server/dist/server.js")], {
    cwd: repoRoot,
    env: { ...process.env, URS_TOKEN: token, PORT: String(port), REDIS_URL: redisUrl },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = () => stopChild(child);
  // It logs "Starting…" before it listens, so readiness is a successful PING.
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the peer shim exited with code ${child.exitCode}`);
    const answer = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: '["PING"]' }).catch(() => undefined);
    if (answer?.ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the peer shim did not answer on ${url} within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, pid: child.pid!, stop };
}
