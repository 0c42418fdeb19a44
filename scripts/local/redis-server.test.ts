import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { startRedisServer } from "./redis-server.ts";

/** Redis's first reply line to `command`, sent as an inline command without authenticating. */
function ask(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(`${command}\r\n`));
    socket.once("data", (chunk) => {
      socket.destroy();
      resolve(chunk.toString().split("\r\n")[0]!);
    });
    socket.once("error", reject);
  });
}

describe("the throwaway redis-server", () => {
  it("Should refuse a local user without its password, and give the password only in its URL, not on the command line", async () => {
    const redis = await startRedisServer({ password: "s3cret-for-the-stack" });
    try {
      expect(await ask(redis.port, "PING")).toBe("-NOAUTH Authentication required.");
      expect(await ask(redis.port, "AUTH s3cret-for-the-stack")).toBe("+OK");
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
});
