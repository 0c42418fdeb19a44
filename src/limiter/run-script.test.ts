import { describe, expect, it } from "vitest";
import { RedisRestError } from "../errors.ts";
import { createFakeRunner } from "../../test/fakes/fake-runner.ts";
import { runScript } from "./run-script.ts";

const script = { source: "return 1", sha1: "e0e1f9fabfc9d4800c877a703b823ac0578ff8db" };
const noscript = new RedisRestError("reply", "evalsha", "NOSCRIPT No matching script. Please use EVAL.", 400);

describe("runScript", () => {
  it("Should send EVALSHA only, when Redis knows the script", async () => {
    const runner = createFakeRunner(() => 1);
    expect(await runScript(runner, script, ["k"], ["a"])).toBe(1);
    expect(runner.calls.map((c) => [c.command, c.script])).toEqual([["evalsha", script.sha1]]);
  });

  it("Should fall back to EVAL with the full text once, on NOSCRIPT", async () => {
    const runner = createFakeRunner((call) => {
      if (call.command === "evalsha") throw noscript;
      return 1;
    });
    expect(await runScript(runner, script, ["k"], ["a"])).toBe(1);
    expect(runner.calls).toEqual([
      { command: "evalsha", script: script.sha1, keys: ["k"], args: ["a"] },
      { command: "eval", script: script.source, keys: ["k"], args: ["a"] },
    ]);
  });

  it("Should never send EVAL after any other failure: a replay could count a request twice", async () => {
    for (const error of [
      new RedisRestError("timeout", "evalsha", "no answer within 50 ms"),
      new RedisRestError("network", "evalsha", "fetch failed"),
      new RedisRestError("http", "evalsha", "Service Unavailable", 503),
    ]) {
      const runner = createFakeRunner(() => {
        throw error;
      });
      await expect(runScript(runner, script, [], [])).rejects.toBe(error);
      expect(runner.calls).toHaveLength(1);
    }
  });
});
