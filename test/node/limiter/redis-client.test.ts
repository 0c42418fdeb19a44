import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisRestError } from "../../../src/errors.ts";
import { createRedisRunner } from "../../../src/redis/client.ts";
import { startHarness, TOKEN, type Harness } from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** The rejection of `promise`, which must be a RedisRestError. */
async function failure(promise: Promise<unknown>): Promise<RedisRestError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RedisRestError);
  return error as RedisRestError;
}

describe("createRedisRunner against the shim", () => {
  it("Should make exactly one try when the connection fails, never a replay", async () => {
    let calls = 0;
    const runner = createRedisRunner({
      url: h.shim.url,
      token: TOKEN,
      timeoutMs: 5_000,
      fetch: async (input, init) => {
        calls++;
        await fetch(input, init); // the script runs in Redis...
        throw new TypeError("fetch failed: other side closed"); // ...and the answer is lost
      },
    });
    h.shim.stats.reset();
    const error = await failure(runner.evalsha("0".repeat(40), [], []));
    expect(error.kind).toBe("network");
    expect([calls, h.shim.stats.requests]).toEqual([1, 1]);
  });

  it("Should make one try and say network when nothing listens", async () => {
    let calls = 0;
    const runner = createRedisRunner({
      url: "http://127.0.0.1:9",
      token: TOKEN,
      timeoutMs: 5_000,
      fetch: (i, o) => {
        calls++;
        return fetch(i, o);
      },
    });
    expect((await failure(runner.eval("return 1", [], []))).kind).toBe("network");
    expect(calls).toBe(1);
  });

  it("Should give up after the timeout and say timeout", async () => {
    h.shim.faults.set({ delayMs: 2_000 });
    try {
      const runner = createRedisRunner({ url: h.shim.url, token: TOKEN, timeoutMs: 50 });
      const error = await failure(runner.eval("return 1", [], []));
      expect(error.kind).toBe("timeout");
      expect(error.message).toBe("Redis EVAL failed: no answer within 50 ms");
    } finally {
      h.shim.faults.clear();
    }
  });

  it("Should say http with the status for a 5xx", async () => {
    h.shim.faults.set({ status: 503 });
    try {
      const error = await failure(createRedisRunner({ url: h.shim.url, token: TOKEN, timeoutMs: 5_000 }).eval("return 1", [], []));
      expect([error.kind, error.status]).toEqual(["http", 503]);
    } finally {
      h.shim.faults.clear();
    }
  });

  it("Should say reply for a Redis error, with Redis's text, so that NOSCRIPT is recognised", async () => {
    const error = await failure(createRedisRunner({ url: h.shim.url, token: TOKEN, timeoutMs: 5_000 }).evalsha("0".repeat(40), [], []));
    expect([error.kind, error.status]).toEqual(["reply", 400]);
    expect(error.message).toContain("NOSCRIPT");
  });

  it("Should never put the token in an error message", async () => {
    const secret = "super-secret-token-value";
    const error = await failure(createRedisRunner({ url: h.shim.url, token: secret, timeoutMs: 5_000 }).eval("return 1", [], []));
    expect([error.kind, error.status]).toEqual(["http", 401]);
    expect(`${error.message} ${String(error.cause ?? "")}`).not.toContain(secret);
  });

  it("Should send only what the decision needs: no base64, no sync token, no telemetry", async () => {
    let sent: Headers | undefined;
    const runner = createRedisRunner({
      url: h.shim.url,
      token: TOKEN,
      timeoutMs: 5_000,
      fetch: (input, init) => {
        sent = new Headers(init?.headers);
        return fetch(input, init);
      },
    });
    expect(await runner.eval("return {1, 2}", [], [])).toEqual([1, 2]);
    expect([...sent!.keys()].sort()).toEqual(["authorization", "content-type"]);
  });
});
