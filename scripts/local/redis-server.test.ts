import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { inlineReply } from "./redis-inline.ts";
import { portIsFree, RedisServerMissingError, startRedisServer } from "./redis-server.ts";

describe("the throwaway redis-server", () => {
  it("Should refuse a local user without its password, and give the password only in its URL, not on the command line", async () => {
    const redis = await startRedisServer({ password: "s3cret-for-the-stack" });
    try {
      expect(await inlineReply(redis.port, "PING")).toBe("-NOAUTH Authentication required.");
      expect(await inlineReply(redis.port, "AUTH s3cret-for-the-stack")).toBe("+OK");
      expect(redis.url).toBe(`redis://:s3cret-for-the-stack@127.0.0.1:${redis.port}`);
    } finally {
      await redis.stop();
    }
  });

  it("Should tell its user when it exits on its own, so that a stack that needs it can stop", async () => {
    const redis = await startRedisServer();
    process.kill(redis.pid, "SIGTERM");
    expect(await redis.exited).toEqual(expect.any(Number));
    await redis.stop();
  });

  it("Should listen on 127.0.0.1 only, where no other machine reaches it", async () => {
    const redis = await startRedisServer();
    const client = new Redis(redis.url);
    try {
      expect(await client.config("GET", "bind")).toEqual(["bind", "127.0.0.1"]);
    } finally {
      client.disconnect();
      await redis.stop();
    }
  });

  it("Should leave nothing behind once stopped: the process gone, its directory removed", async () => {
    const redis = await startRedisServer();
    await redis.stop();
    expect(existsSync(redis.dir)).toBe(false);
    expect(() => process.kill(redis.pid, 0)).toThrow();
  });

  it("Should say how to install redis-server, or name a Redis to use instead, when it is not on PATH", async () => {
    const empty = mkdtempSync(join(tmpdir(), "ratewall-no-redis-"));
    const path = process.env.PATH;
    process.env.PATH = empty;
    try {
      const started = startRedisServer();
      await expect(started).rejects.toThrow(RedisServerMissingError);
      await expect(started).rejects.toThrow(/sudo apt-get install redis-server.*RATEWALL_REDIS_URL \(npm start\) or RATEWALL_TEST_REDIS_URL \(npm test\)/);
    } finally {
      process.env.PATH = path;
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("Should tell a port in use from a free one, so that npm start can name the PORT taken", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    try {
      expect(await portIsFree((taken.address() as { port: number }).port)).toBe(false);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
