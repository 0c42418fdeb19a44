import { Redis, type RedisConfigNodejs } from "@upstash/redis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { fixedWindow } from "../../../src/limiter/fixed-window/index.ts";
import { createRedisRunner } from "../../../src/redis/client.ts";
import { startHarness, T0, TOKEN, type Harness } from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

interface Traffic {
  requests: number;
  paths: Set<string>;
  requestBytes: number;
  responseBytes: number;
}

/** A fetch that forwards to the real one and counts what crosses the wire (headers and bodies). */
function countingFetch(traffic: Traffic): typeof fetch {
  return async (input, init) => {
    traffic.requests++;
    traffic.paths.add(new URL(String(input)).pathname);
    const headers = new Headers(init?.headers);
    for (const [name, value] of headers) traffic.requestBytes += name.length + value.length + 4;
    traffic.requestBytes += String(init?.body ?? "").length;
    const response = await realFetch(input, init);
    const text = await response.text();
    for (const [name, value] of response.headers) traffic.responseBytes += name.length + value.length + 4;
    traffic.responseBytes += text.length;
    return new Response(text, { status: response.status, headers: response.headers });
  };
}

const DECISIONS = 20;
const newTraffic = (): Traffic => ({ requests: 0, paths: new Set(), requestBytes: 0, responseBytes: 0 });

describe("What the client's defaults cost per decision (docs/architecture.md, section 6, The Redis transport)", () => {
  it("Should cost fewer bytes with our runner than with @upstash/redis's defaults, for the same reply", async () => {
    const { sha1, source } = fixedWindow.script;
    const call = (i: number): [string[], string[]] => {
      const prefix = h.prefix();
      return [
        [`${prefix}:list:{c}`, `${prefix}:fixed:{c}:${i}`],
        [String(T0), "1", "", "", "1", "fixed", "10", "1000", "10", "1"],
      ];
    };
    await h.runner.eval(source, ...call(-1)); // cache the script

    const ours = newTraffic();
    const runner = createRedisRunner({ url: h.shim.url, token: TOKEN, timeoutMs: 5_000, fetch: countingFetch(ours) });
    const fromOurs = [];
    for (let i = 0; i < DECISIONS; i++) fromOurs.push(await runner.evalsha(sha1, ...call(i)));

    const defaults = newTraffic();
    globalThis.fetch = countingFetch(defaults); // @upstash/redis calls the global fetch
    const redis = new Redis({ url: h.shim.url, token: TOKEN });
    const fromDefaults = [];
    for (let i = 0; i < DECISIONS; i++) fromDefaults.push(await redis.evalsha(sha1, ...call(i + DECISIONS)));

    const line = (name: string, t: Traffic) =>
      `${name}: ${t.requests / DECISIONS} request(s) to ${[...t.paths].join(", ")}, ` +
      `${Math.round(t.requestBytes / DECISIONS)} B sent and ${Math.round(t.responseBytes / DECISIONS)} B received per decision (headers + body)`;
    console.log(`${line("@upstash/redis defaults", defaults)}\n${line("createRedisRunner", ours)}`);
    expect(fromOurs).toEqual(fromDefaults);
    expect(ours.requests).toBe(DECISIONS);
    expect(ours.requestBytes).toBeLessThan(defaults.requestBytes);
  });
});

describe("Why the runner does not use @upstash/redis's HttpClient: its retries (docs/shim.md §11.5)", () => {
  /** Tries the client makes for one EVALSHA when every fetch is rejected (a reset connection). */
  async function triesWith(retry: RedisConfigNodejs["retry"]): Promise<number> {
    let tries = 0;
    globalThis.fetch = async () => {
      tries++;
      throw new TypeError("fetch failed: other side closed");
    };
    const redis = new Redis({ url: h.shim.url, token: TOKEN, retry, enableAutoPipelining: false });
    await expect(redis.evalsha("0".repeat(40), [], [])).rejects.toThrow("other side closed");
    return tries;
  }

  it("Should replay a rejected fetch 6 times by default, still twice with retry: false, and once only with retries: 0", async () => {
    expect(await triesWith({ backoff: () => 0 })).toBe(6);
    expect(await triesWith(false)).toBe(2);
    expect(await triesWith({ retries: 0 })).toBe(1);
  });
});
