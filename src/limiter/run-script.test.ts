import { describe, expect, it } from "vitest";
import { RedisRestError } from "../errors.ts";
import { createRedisRunner } from "../redis/client.ts";
import { createFakeRunner } from "../../test/fakes/fake-runner.ts";
import { runScript } from "./run-script.ts";

const script = { source: "return 1", sha1: "e0e1f9fabfc9d4800c877a703b823ac0578ff8db" };
const noscript = new RedisRestError("reply", "evalsha", "NOSCRIPT No matching script. Please use EVAL.", 400);

describe("runScript", () => {
  it("Should not send EVAL after an HTTP 5xx whose JSON error starts with NOSCRIPT: only a 400 is Redis's own reply", async () => {
    let calls = 0;
    const fetch = async () => {
      calls++;
      return Response.json({ error: "NOSCRIPT No matching script. Please use EVAL." }, { status: 503 });
    };
    const runner = createRedisRunner({ url: "https://eu1-example.upstash.io", token: "t0ken", timeoutMs: 50, fetch: fetch as typeof globalThis.fetch });
    await expect(runScript(runner, script, ["k"], ["a"])).rejects.toMatchObject({ kind: "http", status: 503 });
    expect(calls).toBe(1);
  });

  it("Should not send EVAL after another runner's error that only mentions NOSCRIPT further on", async () => {
    const error = new Error("ERR Error running script: NOSCRIPT seen in a nested call");
    const runner = createFakeRunner(() => {
      throw error;
    });
    await expect(runScript(runner, script, [], [])).rejects.toBe(error);
    expect(runner.calls).toHaveLength(1);
  });

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

  it("Should not send EVAL after an HTTP 5xx whose body mentions NOSCRIPT, since the script may have run", async () => {
    let calls = 0;
    const fetch = async () => {
      calls++;
      return new Response("<html>502 upstream: ERR NOSCRIPT handling failed</html>", { status: 500 });
    };
    const runner = createRedisRunner({ url: "https://eu1-example.upstash.io", token: "t0ken", timeoutMs: 50, fetch: fetch as typeof globalThis.fetch });
    await expect(runScript(runner, script, ["k"], ["a"])).rejects.toMatchObject({ kind: "http", status: 500 });
    expect(calls).toBe(1);
  });

  it("Should not send EVAL after a reply error that only mentions NOSCRIPT further on", async () => {
    const error = new RedisRestError("reply", "evalsha", "ERR Error running script: NOSCRIPT seen in a nested call", 400);
    const runner = createFakeRunner(() => {
      throw error;
    });
    await expect(runScript(runner, script, [], [])).rejects.toBe(error);
    expect(runner.calls).toHaveLength(1);
  });

  it("Should fall back to EVAL for another runner's error whose message is Redis's NOSCRIPT reply", async () => {
    const runner = createFakeRunner((call) => {
      if (call.command === "evalsha") throw new Error("NOSCRIPT No matching script. Please use EVAL.");
      return 1;
    });
    expect(await runScript(runner, script, [], [])).toBe(1);
    expect(runner.calls.map((c) => c.command)).toEqual(["evalsha", "eval"]);
  });

  it("Should bound EVALSHA, NOSCRIPT and EVAL together by one timeoutMs, the EVAL getting what is left", async () => {
    const sent: string[] = [];
    // EVALSHA answers NOSCRIPT after 80 ms of the 100; the EVAL never answers.
    const fetch = (_: unknown, init?: RequestInit) => {
      const command = (JSON.parse(String(init!.body)) as string[])[0]!;
      sent.push(command);
      return new Promise<Response>((resolve, reject) => {
        init!.signal!.addEventListener("abort", () => reject(init!.signal!.reason));
        if (command === "evalsha") setTimeout(() => resolve(Response.json({ error: "NOSCRIPT No matching script. Please use EVAL." }, { status: 400 })), 80);
      });
    };
    const runner = createRedisRunner({ url: "https://eu1-example.upstash.io", token: "t0ken", timeoutMs: 100, fetch: fetch as typeof globalThis.fetch });
    const started = Date.now();
    await expect(runScript(runner, script, ["k"], ["a"])).rejects.toMatchObject({ kind: "timeout", command: "eval" });
    expect(sent).toEqual(["evalsha", "eval"]);
    expect(Date.now() - started).toBeLessThan(150);
  });
});
