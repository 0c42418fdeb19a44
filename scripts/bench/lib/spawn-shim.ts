/**
 * @module Starts the shim in a child process (shim-child.ts, through tsx) and stops it.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { stopChild } from "../../local/redis-server.ts";
import { fromRoot, repoRoot } from "./paths.ts";

/** A shim running in its own process. */
export interface ShimProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Spawns the shim for `redisUrl` and resolves with its URL once it listens.
 *
 * @example
 * const shim = await spawnShim(redis.url, token);
 * try { … } finally { await shim.stop(); }
 */
export async function spawnShim(redisUrl: string, token: string, timeoutMs = 20_000): Promise<ShimProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", fromRoot("scripts/bench/lib/shim-child.ts")], {
    cwd: repoRoot,
    env: { ...process.env, BENCH_REDIS_URL: redisUrl, BENCH_TOKEN: token },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const stop = () => stopChild(child);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the shim child did not start within ${timeoutMs} ms`)), timeoutMs);
      child.once("exit", (code) => reject(new Error(`the shim child exited with code ${code}`)));
      createInterface({ input: child.stdout! }).once("line", (line) => {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { url: string }).url);
      });
    });
    return { url, pid: child.pid!, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
