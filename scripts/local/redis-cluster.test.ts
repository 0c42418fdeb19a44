import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startRedisCluster } from "./redis-cluster.ts";

/** The pids of the redis-server processes this test process started and that still run. */
function redisServersHere(): number[] {
  const { stdout } = spawnSync("pgrep", ["-P", String(process.pid), "-x", "redis-server"], { encoding: "utf8" });
  return stdout.split("\n").filter(Boolean).map(Number);
}

describe("the throwaway Redis Cluster", () => {
  it("Should stop the nodes it started when it cannot join them, and say that redis-cli is missing", async () => {
    // A PATH with redis-server and without redis-cli.
    const bin = mkdtempSync(join(tmpdir(), "ratewall-no-redis-cli-"));
    symlinkSync(execFileSync("which", ["redis-server"], { encoding: "utf8" }).trim(), join(bin, "redis-server"));
    const path = process.env.PATH;
    process.env.PATH = bin;
    try {
      await expect(startRedisCluster()).rejects.toThrow("redis-cli was not found on PATH: it comes with redis-server (Debian: redis-tools)");
    } finally {
      process.env.PATH = path;
      rmSync(bin, { recursive: true, force: true });
    }
    const left = redisServersHere();
    for (const pid of left) process.kill(pid, "SIGKILL");
    expect(left).toEqual([]);
  }, 30_000);
});
