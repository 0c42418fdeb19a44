import { randomBytes } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { spawnShim } from "./shim-process.ts";

describe("the shim in its own process", () => {
  it("Should answer as the shim does once started, and leave no process behind once stopped", async () => {
    const token = randomBytes(16).toString("hex");
    const shim = await spawnShim(["--redis-url", inject("redisUrl"), "--token", token]);
    try {
      const answer = await fetch(shim.url, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: '["PING"]' });
      expect(await answer.json()).toEqual({ result: "PONG" });
    } finally {
      await shim.stop();
    }
    const running = shim.child.exitCode === null && shim.child.signalCode === null;
    if (running) shim.child.kill("SIGKILL");
    expect(running).toBe(false);
  }, 30_000);
});
