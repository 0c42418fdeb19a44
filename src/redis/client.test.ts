import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { RedisRestError } from "../errors.ts";
import { readSettings } from "../settings.ts";
import { createRedisRunner } from "./client.ts";

type Sent = { url: string; init: RequestInit };

/** A fetch that records what it was given and answers `status` with `body`. */
function fakeFetch(status: number, body: unknown, sent: Sent[] = []) {
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    sent.push({ url: String(input), init: init! });
    return new Response(JSON.stringify(body), { status });
  };
  return Object.assign(fetch as typeof globalThis.fetch, { sent });
}

const options = { url: "https://eu1-example.upstash.io/", token: "t0ken", timeoutMs: 50 };

describe("createRedisRunner (workerd)", () => {
  it("Should fail a call that a real server answers with a redirect, as that redirect, never following it with the token", async () => {
    // The tests' echo origin answers what x-origin-answer asks of its root; any other path, followed, is a 200 echo.
    const answer = JSON.stringify({ path: "/", status: 307, headers: { location: "/elsewhere" } });
    const viaEcho: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("x-origin-answer", answer);
      return fetch(input, { ...init, headers });
    };
    const runner = createRedisRunner({ url: env.ORIGIN_URL!, token: "t0ken", timeoutMs: 5_000, fetch: viaEcho });
    await expect(runner.evalsha("ab".repeat(20), [], [])).rejects.toMatchObject({ name: "RedisRestError", kind: "http", status: 307 });
  });

  it("Should POST EVALSHA in @upstash/redis's wire form to the root, with only the bearer token and content type", async () => {
    const fetch = fakeFetch(200, { result: [1, 1, 9, 1_000, 0] });
    const runner = createRedisRunner({ ...options, fetch });
    expect(await runner.evalsha("ab".repeat(20), ["k1", "k2"], ["1000", "1"])).toEqual([1, 1, 9, 1_000, 0]);
    const { url, init } = fetch.sent[0]!;
    expect(url).toBe("https://eu1-example.upstash.io");
    expect(init.body).toBe(JSON.stringify(["evalsha", "ab".repeat(20), 2, "k1", "k2", "1000", "1"]));
    expect(Object.fromEntries(new Headers(init.headers))).toEqual({ authorization: "Bearer t0ken", "content-type": "application/json" });
    expect(init.signal).toBeInstanceOf(AbortSignal);
  });

  it("Should refuse a timeoutMs, url or token every call would fail with, when created, naming the option and never the token", async () => {
    expect(() => createRedisRunner({ ...options, timeoutMs: Number("abc") })).toThrow("timeoutMs: expected an integer >= 1 (ms), got NaN");
    expect(() => createRedisRunner({ ...options, timeoutMs: 0 })).toThrow("timeoutMs: expected an integer >= 1 (ms), got 0");
    expect(() => createRedisRunner({ ...options, timeoutMs: undefined as unknown as number })).toThrow("got undefined");
    // A token passed as the URL is not quoted; one with a password in it would fail every call, quoting it.
    for (const url of ["eu1-example.upstash.io", "AXyzS3cretT0ken", "https://default:S3cret@eu1-example.upstash.io", "https://[bad"]) {
      expect(() => createRedisRunner({ ...options, url }), url).toThrow(
        new TypeError("url: expected an http(s) URL without credentials (not quoted: it may be a secret)"),
      );
    }
    // What UPSTASH_REDIS_REST_URL accepts, the runner takes too: else the Worker would answer every request 500.
    for (const url of ["https://@eu1-example.upstash.io", "https:eu1-example.upstash.io", " https://eu1-example.upstash.io/ "]) {
      expect(readSettings({ UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: "t0ken" }).redis.url, url).toBe(url);
      const fetch = fakeFetch(200, { result: 1 });
      await createRedisRunner({ ...options, url, fetch }).evalsha("ab".repeat(20), [], []);
      expect(fetch.sent[0]!.url, url).toBe("https://eu1-example.upstash.io");
    }
    // Missing or empty, every call would be a 401: no limit at all under FAILURE_MODE=open.
    expect(() => createRedisRunner({ ...options, token: undefined as unknown as string })).toThrow("token: expected a non-empty string, got undefined");
    expect(() => createRedisRunner({ ...options, token: " " })).toThrow("token: expected a non-empty string, got an empty one");
    // A header cannot carry it, and the runtime's own error would quote the whole header, token and all.
    for (const token of ["s3cret-t0ken\u0000", "s3cret\nt0ken", "s3cret-t0ken-é€"]) {
      const error = (() => {
        try {
          createRedisRunner({ ...options, token });
        } catch (thrown) {
          return String(thrown);
        }
      })();
      expect(error).toMatch(/^TypeError: token: contains U\+[0-9A-F]{4} at character \d+, which an HTTP header cannot carry$/);
      expect(error).not.toContain("s3cret");
    }
    // A token read from a file with its line break still works, as fetch would send it.
    const sent: string[] = [];
    const echo: typeof fetch = async (_, init) => {
      sent.push(new Headers(init?.headers).get("authorization") ?? "");
      return Response.json({ result: 1 });
    };
    await createRedisRunner({ ...options, token: "t0ken\n", fetch: echo }).evalsha("0".repeat(40), [], []);
    expect(sent).toEqual(["Bearer t0ken"]);
  });

  it("Should throw a reply error with Redis's text for a 400 error body", async () => {
    const runner = createRedisRunner({ ...options, fetch: fakeFetch(400, { error: "NOSCRIPT No matching script. Please use EVAL." }) });
    await expect(runner.evalsha("00", [], [])).rejects.toMatchObject({
      name: "RedisRestError",
      kind: "reply",
      status: 400,
      message: "Redis EVALSHA failed with 400: NOSCRIPT No matching script. Please use EVAL.",
    });
  });

  it("Should throw an http error for a 5xx, for any other non-2xx even with a result (a proxy's page), and for a 200 without a result", async () => {
    await expect(createRedisRunner({ ...options, fetch: fakeFetch(502, { error: "bad gateway" }) }).eval("return 1", [], [])).rejects.toMatchObject({
      kind: "http",
      status: 502,
    });
    for (const status of [302, 403]) {
      await expect(createRedisRunner({ ...options, fetch: fakeFetch(status, { result: 1 }) }).eval("return 1", [], [])).rejects.toMatchObject({
        kind: "http",
        status,
      });
    }
    await expect(createRedisRunner({ ...options, fetch: fakeFetch(200, { nope: 1 }) }).eval("return 1", [], [])).rejects.toMatchObject({
      kind: "http",
      status: 200,
    });
  });

  it("Should never quote any part of the token from an error page that echoes it, even where the quote is cut", async () => {
    const token = "AXyzTOKEN_abcdefghijklmnopqrstuvwxyz0123456789";
    const fetch = async () => new Response(`${"x".repeat(80)}Bearer ${token}`, { status: 500 });
    const runner = createRedisRunner({ ...options, token, fetch: fetch as typeof globalThis.fetch });
    const error: Error = await runner.eval("return 1", [], []).then(
      () => new Error("no error thrown"),
      (caught: Error) => caught,
    );
    expect(error).toMatchObject({ kind: "http", status: 500 });
    expect(error.message).not.toContain(token.slice(0, 8));
    expect(error.message).toContain("Bearer [redacted]");
  });

  it("Should try once and throw a network error when fetch rejects", async () => {
    let calls = 0;
    const runner = createRedisRunner({
      ...options,
      fetch: async () => {
        calls++;
        throw new TypeError("Network connection lost.");
      },
    });
    const error = await runner.eval("return 1", [], []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisRestError);
    expect([(error as RedisRestError).kind, calls]).toEqual(["network", 1]);
    expect((error as Error).message).not.toContain("t0ken");
  });

  it("Should throw a timeout error when no answer comes within timeoutMs", async () => {
    const hang = (_: unknown, init?: RequestInit) =>
      new Promise<Response>((_, reject) => init!.signal!.addEventListener("abort", () => reject(init!.signal!.reason)));
    const runner = createRedisRunner({ ...options, timeoutMs: 10, fetch: hang as typeof fetch });
    await expect(runner.eval("return 1", [], [])).rejects.toMatchObject({ kind: "timeout", message: "Redis EVAL failed: no answer within 10 ms" });
  });

  it("Should not send an EVAL whose bound, counted from startedAt, has already passed", async () => {
    const fetch = fakeFetch(200, { result: 1 });
    const runner = createRedisRunner({ ...options, fetch });
    await expect(runner.eval("return 1", [], [], Date.now() - options.timeoutMs)).rejects.toMatchObject({
      kind: "timeout",
      message: "Redis EVAL failed: no answer within 50 ms",
    });
    expect(fetch.sent).toHaveLength(0);
    expect(await runner.eval("return 1", [], [], Date.now())).toBe(1);
  });

  it("Should never quote the token in any error, whichever branch built it: a JSON error body, a Redis reply or a rejected fetch", async () => {
    const token = "AYNgASQgODk0-token_abcdefghij";
    const echo = `invalid token Bearer ${token}`;
    const fetches = [
      fakeFetch(401, { error: echo }),
      fakeFetch(400, { error: echo }),
      fakeFetch(502, { error: echo }),
      async () => {
        throw new TypeError(`Invalid header value: "Bearer ${token}"`);
      },
    ];
    for (const fetch of fetches) {
      const runner = createRedisRunner({ ...options, token, fetch: fetch as typeof globalThis.fetch });
      const error: Error = await runner.evalsha("00", [], []).then(
        () => new Error("no error thrown"),
        (caught: Error) => caught,
      );
      expect(error).toBeInstanceOf(RedisRestError);
      expect(error.message).not.toContain(token);
      expect((error as RedisRestError).detail).not.toContain(token);
      expect(error.message).toContain("Bearer [redacted]");
    }
  });
});
