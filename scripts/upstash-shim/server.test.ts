import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer, request } from "node:http";
import { connect } from "node:net";
import { Redis } from "@upstash/redis";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { freePort, startRedisServer } from "../local/redis-server.ts";
import { startShim, type Shim } from "./index.ts";

const TOKEN = "good";
const H = { authorization: `Bearer ${TOKEN}` };
const B64 = { ...H, "upstash-encoding": "base64" };

let shim: Shim;
beforeAll(async () => {
  shim = await startShim({ redisUrl: inject("redisUrl"), token: TOKEN, port: 0 });
});
afterAll(() => shim.close());

async function call(path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(`${shim.url}${path}`, { method: init.method ?? "POST", body: init.body, headers: init.headers ?? H });
  return { status: res.status, body: await res.text(), headers: res.headers };
}

/** A request with its target sent exactly as given (fetch would normalise it), with the token. */
function rawCall(method: string, target: string, body = ""): Promise<{ status?: number; body: string }> {
  const url = new URL(shim.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path: target, headers: H }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on("error", reject).end(body);
  });
}

/**
 * The status of the answer to a POST whose headers announce a body that is never sent: only an
 * answer given before reading the body can arrive.
 */
function statusBeforeBody(base: string, headers: Record<string, string>): Promise<number> {
  const url = new URL(base);
  return new Promise<number>((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method: "POST", path: "/", headers });
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode!);
      req.destroy();
    });
    req.on("error", reject);
    req.flushHeaders();
  });
}

describe("the examples of docs/shim.md §15", () => {
  const p = `srv:${randomUUID()}:`;
  // [request, headers, body, status, exact response body]; run in order, as one session.
  const table: Array<[string, Record<string, string>, string, number, string]> = [
    ["/", H, `["SET","${p}k","v"]`, 200, '{"result":"OK"}'],
    ["/", B64, `["SET","${p}k","v"]`, 200, '{"result":"OK"}'],
    ["/", B64, `["GET","${p}k"]`, 200, '{"result":"dg=="}'],
    ["/", H, `["GET","${p}nokey"]`, 200, '{"result":null}'],
    ["/", B64, `["PING"]`, 200, '{"result":"UE9ORw=="}'],
    ["/", H, `["HSET","${p}h","f",1]`, 200, '{"result":1}'],
    ["/", B64, `["HGETALL","${p}h"]`, 200, '{"result":["Zg==","MQ=="]}'],
    ["/", H, `["ZADD","${p}z",1.5,"m"]`, 200, '{"result":1}'],
    ["/", B64, `["ZRANGE","${p}z",0,-1,"WITHSCORES"]`, 200, '{"result":["bQ==","MS41"]}'],
    ["/", B64, `["SET","${p}b",true]`, 200, '{"result":"OK"}'],
    ["/", B64, `["GET","${p}b"]`, 200, '{"result":"dHJ1ZQ=="}'],
    ["/", H, `["EVAL","return 1",0]`, 200, '{"result":1}'],
    ["/", H, `["EVAL","return {1,'a',false,{'x',2}}",0]`, 200, '{"result":[1,"a",null,["x",2]]}'],
    ["/", B64, `["EVAL","return {1,'a',false,{'x',2}}",0]`, 200, '{"result":[1,"YQ==",null,["eA==",2]]}'],
    ["/", H, `["EVAL","return nil",0]`, 200, '{"result":null}'],
    ["/", H, `["EVAL","return 3.7",0]`, 200, '{"result":3}'],
    ["/", H, `["EVAL","return true",0]`, 200, '{"result":1}'],
    ["/", B64, `["EVAL","return redis.status_reply('FINE')",0]`, 200, '{"result":"RklORQ=="}'],
    ["/", H, `["EVAL","return redis.error_reply('boom')",0]`, 400, '{"error":"ERR boom"}'],
    ["/", H, `["EVALSHA","${"0".repeat(40)}",0]`, 400, '{"error":"NOSCRIPT No matching script. Please use EVAL."}'],
    ["/", B64, `["SCRIPT","LOAD","return ARGV[1]"]`, 200, '{"result":"MDk4ZTBmMGQxNDQ4YzBhODFkYWZlODIwZjY2ZDQ2MGViMDkyNjNkYQ=="}'],
    ["/", H, `["EVAL","#!lua flags=allow-key-locking\\nreturn 1",0]`, 200, '{"result":1}'],
    [
      "/pipeline",
      H,
      `[["SET","${p}k","v"],["INCR","${p}k"],["GET","${p}k"]]`,
      200,
      '[{"result":"OK"},{"error":"ERR value is not an integer or out of range"},{"result":"v"}]',
    ],
    ["/pipeline", B64, `[["SET","${p}k","v"],["GET","${p}k"],["PING"]]`, 200, '[{"result":"OK"},{"result":"dg=="},{"result":"UE9ORw=="}]'],
    ["/pipeline", H, `[["EVALSHA","wrong-sha1",0],["GET","${p}x"]]`, 200, '[{"error":"NOSCRIPT No matching script. Please use EVAL."},{"result":null}]'],
    [
      "/multi-exec",
      H,
      `[["SET","${p}a","x"],["INCR","${p}a"],["GET","${p}a"]]`,
      200,
      '[{"result":"OK"},{"error":"ERR value is not an integer or out of range"},{"result":"x"}]',
    ],
    [
      "/multi-exec",
      H,
      `[["SET","${p}a","x"],["NOTACMD"]]`,
      400,
      `{"error":"EXECABORT Transaction discarded because of previous errors. First error: ERR unknown command 'NOTACMD', with args beginning with: "}`,
    ],
    ["/", { authorization: "Bearer wrong" }, `["PING"]`, 401, '{"error":"Unauthorized"}'],
    ["/", {}, `["PING"]`, 401, '{"error":"Unauthorized"}'],
    ["/", H, `["PING"`, 400, '{"error":"ERR failed to parse command"}'],
    ["/", H, `[]`, 400, '{"error":"ERR empty command"}'],
    ["/", H, `{"a":1}`, 400, '{"error":"ERR failed to parse command"}'],
  ];

  it.each(table)("Should answer POST %s with %o and %s with %i %s", async (path, headers, body, status, expected) => {
    const res = await call(path, { body, headers });
    expect({ status: res.status, body: res.body }).toEqual({ status, body: expected });
    expect(res.headers.get("content-type")).toBe("application/json");
  });

  it("Should answer GET /set/<k>/<v>?_token=… in the path form", async () => {
    expect(await call(`/set/${p}path/bar?_token=${TOKEN}`, { method: "GET", headers: {} })).toMatchObject({ status: 200, body: '{"result":"OK"}' });
    expect(await call(`/get/${p}path`, { method: "GET" })).toMatchObject({ status: 200, body: '{"result":"bar"}' });
  });

  it("Should answer DELETE / with 405 and a JSON body", async () => {
    expect(await call("/", { method: "DELETE" })).toMatchObject({ status: 405, body: '{"error":"ERR method DELETE is not allowed"}' });
  });
});

describe("the path form (docs/shim.md §1)", () => {
  it("Should append the raw body as the last argument before the query parameters", async () => {
    const key = `srv:${randomUUID()}`;
    expect((await call(`/set/${key}?EX=100`, { body: "a raw body", headers: H })).body).toBe('{"result":"OK"}');
    expect((await call(`/get/${key}`, { method: "GET" })).body).toBe('{"result":"a raw body"}');
    expect((await call(`/ttl/${key}`, { method: "GET" })).body).toMatch(/^\{"result":(100|99)\}$/);
  });

  it("Should store a binary body byte for byte, and return it exactly in base64", async () => {
    const key = `srv:${randomUUID()}`;
    const bytes = Buffer.from([0xff, 0x00, 0xfe, 0x80, 0x0a, 0xc3]);
    const res = await fetch(`${shim.url}/set/${key}`, { method: "POST", body: bytes, headers: H });
    expect(await res.text()).toBe('{"result":"OK"}');
    expect((await call("/", { body: JSON.stringify(["GET", key]), headers: B64 })).body).toBe(`{"result":"${bytes.toString("base64")}"}`);
  });

  it("Should take dot segments and backslashes as arguments, never as a path to resolve", async () => {
    // fetch would resolve the dots itself, so this request is written as a client may send it.
    const key = `srv:${randomUUID()}`;
    expect(await rawCall("GET", `/rpush/${key}/./%2E/../%2e%2E/a\\b`)).toEqual({ status: 200, body: '{"result":5}' });
    expect((await call("/", { body: JSON.stringify(["LRANGE", key, 0, -1]) })).body).toBe(JSON.stringify({ result: [".", ".", "..", "..", "a\\b"] }));
  });

  it("Should read an absolute-form request target by its path (RFC 9112 §3.2.2)", async () => {
    const key = `srv:${randomUUID()}`;
    expect(await rawCall("POST", `${shim.url}/`, '["PING"]')).toEqual({ status: 200, body: '{"result":"PONG"}' });
    expect(await rawCall("GET", `${shim.url}/set/${key}/v?EX=100`)).toEqual({ status: 200, body: '{"result":"OK"}' });
    expect((await call(`/get/${key}`, { method: "GET" })).body).toBe('{"result":"v"}');
  });

  it("Should percent-decode path segments", async () => {
    const key = `srv:${randomUUID()} with spaces`;
    await call(`/set/${encodeURIComponent(key)}/caf%C3%A9`);
    expect((await call("/", { body: JSON.stringify(["GET", key]) })).body).toBe('{"result":"café"}');
  });
});

describe("requests the shim refuses", () => {
  it("Should answer 401 before reading the body when the token is wrong", async () => {
    expect(await statusBeforeBody(shim.url, { authorization: "Bearer wrong", "content-length": "1000" })).toBe(401);
  });

  it("Should answer 413 before reading the body when its announced length is over the limit", async () => {
    const small = await startShim({ redisUrl: inject("redisUrl"), token: TOKEN, port: 0, maxBodyBytes: 64 });
    try {
      expect(await statusBeforeBody(small.url, { ...H, "content-length": "65" })).toBe(413);
    } finally {
      await small.close();
    }
  });

  it("Should accept the token in the _token query parameter, and any Content-Type", async () => {
    const res = await call(`/?_token=${TOKEN}`, { body: '["PING"]', headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(res).toMatchObject({ status: 200, body: '{"result":"PONG"}' });
  });

  it("Should refuse commands that change connection state or block, with Upstash's text", async () => {
    for (const command of [["SELECT", 1], ["CLIENT", "SETNAME", "x"], ["BLPOP", "k", 0], ["MULTI"], ["SUBSCRIBE", "c"], ["CONFIG", "GET", "*"]]) {
      const res = await call("/", { body: JSON.stringify(command) });
      expect(res).toEqual(expect.objectContaining({ status: 400, body: `{"error":"ERR Command is not available: '${command[0]}'"}` }));
    }
  });

  it("Should report a refused command inside a pipeline as its own entry and run the others", async () => {
    const key = `srv:${randomUUID()}`;
    const res = await call("/pipeline", { body: JSON.stringify([["SET", key, "1"], ["EXEC"], ["GET", key]]) });
    expect(res.body).toBe(`[{"result":"OK"},{"error":"ERR Command is not available: 'EXEC'"},{"result":"1"}]`);
  });

  it("Should discard a whole transaction that holds a refused command", async () => {
    const key = `srv:${randomUUID()}`;
    const res = await call("/multi-exec", {
      body: JSON.stringify([
        ["SET", key, "1"],
        ["WATCH", key],
      ]),
    });
    expect(res).toMatchObject({ status: 400, body: `{"error":"ERR Command is not available: 'WATCH'"}` });
    expect((await call("/", { body: JSON.stringify(["EXISTS", key]) })).body).toBe('{"result":0}');
  });

  it("Should answer 404 with JSON for endpoints that do not exist", async () => {
    expect(await call("/pipeline/extra", { body: "[]" })).toMatchObject({ status: 404, body: '{"error":"ERR endpoint not found: /pipeline/extra"}' });
    expect(await call("//set/a/b", { body: "" })).toMatchObject({ status: 404, body: '{"error":"ERR endpoint not found: //set/a/b"}' });
  });

  it("Should answer any body, JSON or not, with a JSON result or error and never fail", async () => {
    // Command names get a prefix, so that no generated command can be a real one (FLUSHALL…).
    const defuse = (value: unknown): unknown => (Array.isArray(value) && typeof value[0] === "string" ? [`NOTACMD_${value[0]}`, ...value.slice(1)] : value);
    const bodies = fc.oneof(
      fc.json().map((text) => JSON.stringify(defuse(JSON.parse(text)))),
      fc.array(fc.jsonValue()).map((commands) => JSON.stringify(commands.map(defuse))),
      fc.string(),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("/", "/pipeline", "/multi-exec"), bodies, async (path, body) => {
        const res = await call(path, { body });
        expect([200, 400]).toContain(res.status);
        const parsed = JSON.parse(res.body);
        if (res.status === 400) expect(Object.keys(parsed)).toEqual(["error"]);
      }),
      { numRuns: 300 },
    );
  });

  it("Should answer 400 for the resp2 response format, which it does not implement", async () => {
    const res = await call("/", { body: '["PING"]', headers: { ...H, "upstash-response-format": "resp2" } });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toHaveProperty("error");
  });

  it("Should let in clients of a token pasted with a line break or spaces at its ends, which fetch strips before sending", async () => {
    const pasted = await startShim({ redisUrl: inject("redisUrl"), token: `  ${TOKEN}\n`, port: 0 });
    try {
      const res = await fetch(`${pasted.url}/`, { method: "POST", body: '["PING"]', headers: { authorization: `Bearer ${TOKEN}` } });
      expect({ status: res.status, body: await res.text() }).toEqual({ status: 200, body: '{"result":"PONG"}' });
    } finally {
      await pasted.close();
    }
    await expect(startShim({ redisUrl: inject("redisUrl"), token: " \n ", port: 0 })).rejects.toThrow("startShim: a non-empty token is required");
  });

  it("Should answer 413 for a body over the limit, and keep serving", async () => {
    const small = await startShim({ redisUrl: inject("redisUrl"), token: TOKEN, port: 0, maxBodyBytes: 64 });
    try {
      /** The body sent chunked, without a length, so that node:http reads it. */
      const streamed = (text: string) =>
        fetch(`${small.url}/`, {
          method: "POST",
          headers: H,
          body: new ReadableStream({
            start: (c) => {
              c.enqueue(new TextEncoder().encode(text));
              c.close();
            },
          }),
          duplex: "half",
        } as RequestInit);
      const big = JSON.stringify(["SET", "k", "x".repeat(200_000)]);
      const res = await fetch(`${small.url}/`, { method: "POST", body: big, headers: H });
      expect({ status: res.status, body: await res.text() }).toEqual({ status: 413, body: '{"error":"ERR max request size exceeded (64 bytes)"}' });
      expect((await streamed(big)).status).toBe(413);
      expect((await fetch(`${small.url}/`, { method: "POST", body: '["PING"]', headers: H })).status).toBe(200);
      // Chunked, exactly at the limit and one byte over it.
      const sized = (bytes: number) => JSON.stringify(["ECHO", "x".repeat(bytes - 11)]);
      expect((await streamed(sized(64))).status).toBe(200);
      expect((await streamed(sized(65))).status).toBe(413);
    } finally {
      await small.close();
    }
  });
});

describe("headers and instrumentation", () => {
  it("Should send a new, non-empty upstash-sync-token on every response, errors included", async () => {
    const tokens = [];
    for (const headers of [H, H, { authorization: "Bearer wrong" }]) {
      tokens.push((await call("/", { body: '["PING"]', headers })).headers.get("upstash-sync-token"));
    }
    expect(tokens.every((token) => typeof token === "string" && token.length > 0)).toBe(true);
    expect(new Set(tokens).size).toBe(3);
  });

  it("Should answer a browser's preflight without a token, and expose the sync token (§14)", async () => {
    const res = await fetch(`${shim.url}/pipeline`, { method: "OPTIONS", headers: { origin: "http://app.example", "access-control-request-method": "POST" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-headers")).toContain("authorization");
    expect(res.headers.get("access-control-expose-headers")).toBe("upstash-sync-token");
  });

  it("Should allow in a preflight every header a default @upstash/redis sends, so that a browser lets its requests out (§11.1, §14)", async () => {
    // What the client sends, captured by a server that answers every request as Redis would PING.
    const sent = new Set<string>();
    const capture = createServer((req, res) => {
      for (const name of Object.keys(req.headers)) sent.add(name);
      res.setHeader("content-type", "application/json").end('{"result":"PONG"}');
    });
    await new Promise<void>((resolve) => capture.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = capture.address() as { port: number };
      await new Redis({ url: `http://127.0.0.1:${port}`, token: TOKEN, enableAutoPipelining: false }).ping();
    } finally {
      capture.close();
    }
    // Sent only when retrying (§11.5), so not captured above.
    sent.add("upstash-telemetry-retry");
    // Node's fetch adds these itself (pragma and cache-control for the client's `cache: "no-store"`);
    // a browser adds its own, and a preflight asks only for the headers the client sets.
    const added = [
      "host",
      "connection",
      "content-length",
      "accept",
      "accept-encoding",
      "accept-language",
      "sec-fetch-mode",
      "user-agent",
      "pragma",
      "cache-control",
    ];
    const asked = [...sent].filter((name) => !added.includes(name));
    const res = await fetch(`${shim.url}/pipeline`, {
      method: "OPTIONS",
      headers: { origin: "http://app.example", "access-control-request-method": "POST", "access-control-request-headers": asked.join(",") },
    });
    const allowed = (res.headers.get("access-control-allow-headers") ?? "").split(/\s*,\s*/);
    expect(asked).toContain("upstash-telemetry-sdk");
    expect(asked.filter((name) => !allowed.includes(name))).toEqual([]);
  });

  it("Should allow in a preflight every header @upstash/redis sets on a subscription, so that a browser lets it out (§11.7, §14)", async () => {
    // The headers the client itself sets (what a browser lists in Access-Control-Request-Headers),
    // read from fetch's arguments rather than from the wire, where Node adds its own.
    const set: string[][] = [];
    const stub = vi.spyOn(globalThis, "fetch").mockImplementation(async (_url, init) => {
      set.push([...new Headers(init?.headers).keys()]);
      return new Response("data: subscribe,c,1\n\n", { headers: { "content-type": "text/event-stream" } });
    });
    try {
      const subscriber = new Redis({ url: shim.url, token: TOKEN, enableTelemetry: false }).subscribe([`chan-${randomUUID()}`]);
      await vi.waitFor(() => expect(set).toHaveLength(1));
      await subscriber.unsubscribe();
    } finally {
      stub.mockRestore();
    }
    // Fetch standard: Accept is CORS-safelisted and Connection a forbidden header; neither is asked.
    const asked = set[0]!.filter((name) => name !== "accept" && name !== "connection");
    const res = await fetch(`${shim.url}/subscribe/c`, {
      method: "OPTIONS",
      headers: { origin: "http://app.example", "access-control-request-method": "POST", "access-control-request-headers": asked.join(",") },
    });
    const allowed = (res.headers.get("access-control-allow-headers") ?? "").split(/\s*,\s*/);
    expect(asked).toContain("cache-control");
    expect(asked.filter((name) => !allowed.includes(name))).toEqual([]);
  });

  it("Should count requests and body bytes in both directions", async () => {
    shim.stats.reset();
    await call("/", { body: '["PING"]' });
    expect({ ...shim.stats, reset: undefined }).toEqual({ requests: 1, bytesIn: 8, bytesOut: '{"result":"PONG"}'.length, reset: undefined });
  });

  it("Should answer with an injected status, and run nothing, until the faults are cleared", async () => {
    const key = `srv:${randomUUID()}`;
    shim.faults.set({ status: 500, delayMs: 5 });
    try {
      const res = await call("/", { body: JSON.stringify(["SET", key, "1"]) });
      expect(res).toMatchObject({ status: 500, body: '{"error":"ERR injected fault: status 500"}' });
    } finally {
      shim.faults.clear();
    }
    expect((await call("/", { body: JSON.stringify(["EXISTS", key]) })).body).toBe('{"result":0}');
  });
});

describe("Pub/Sub over SSE (docs/shim.md §11.7)", () => {
  it("Should stream the subscribe confirmation and then raw published messages, with the sync token and CORS headers of every answer", async () => {
    const channel = `chan ${randomUUID()}`;
    const abort = new AbortController();
    const res = await fetch(`${shim.url}/subscribe/${encodeURIComponent(channel)}`, {
      method: "POST",
      body: "[]",
      headers: { ...B64, accept: "text/event-stream" },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("upstash-sync-token")).toMatch(/^[0-9a-f]{8}-\d+$/);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) text += (await reader.read()).value ?? "";
    };
    await readUntil(`data: subscribe,${channel},1\n`);
    await vi.waitFor(async () => {
      expect((await call("/", { body: JSON.stringify(["PUBLISH", channel, '{"hello":1}']) })).body).toBe('{"result":1}');
    });
    await readUntil(`data: message,${channel},{"hello":1}\n`);
    abort.abort();
  });

  it("Should refuse a subscription without the token, or with a wrong one, before it streams anything", async () => {
    for (const path of ["/subscribe/news", "/psubscribe/news*", "/subscribe/news?_token=wrong"]) {
      for (const headers of [{}, { authorization: "Bearer wrong" }] as Array<Record<string, string>>) {
        const abort = new AbortController();
        const res = await fetch(`${shim.url}${path}`, { method: "POST", body: "[]", headers, signal: abort.signal });
        // A stream that opened would never end: read its body only when it is the refusal.
        if (res.status !== 401) abort.abort();
        expect({ status: res.status, body: res.status === 401 ? await res.text() : "(a stream)" }, path).toEqual({
          status: 401,
          body: '{"error":"Unauthorized"}',
        });
      }
    }
  });

  it("Should end the stream and release the subscription once the client ends its side of the connection", async () => {
    const channel = `chan-${randomUUID()}`;
    const { hostname, port } = new URL(shim.url);
    const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
    try {
      let text = "";
      socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
      const ended = once(socket, "end").then(() => "ended");
      socket.write(`POST /subscribe/${channel} HTTP/1.1\r\nHost: shim\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 2\r\n\r\n[]`);
      await vi.waitFor(() => expect(text).toContain(`data: subscribe,${channel},1\n`));
      socket.end();
      expect(await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 2_000, "still open"))])).toBe("ended");
      await vi.waitFor(async () => expect((await call("/", { body: JSON.stringify(["PUBLISH", channel, "x"]) })).body).toBe('{"result":0}'));
    } finally {
      socket.destroy();
    }
  });
});

describe("the Redis URL", () => {
  it("Should use the database and the password the URL names, and answer 503 naming the refusal when the password is wrong", async () => {
    const redis = await startRedisServer({ password: "s3cret" });
    const at = (auth: string, db: string) => `redis://${auth}@127.0.0.1:${redis.port}${db}`;
    const shims = await Promise.all(
      [at(":s3cret", "/3"), at(":s3cret", ""), at(":wrong", "")].map((redisUrl) => startShim({ redisUrl, token: TOKEN, port: 0 })),
    );
    try {
      const send = async (shim: Shim, command: string[]) => {
        const res = await fetch(`${shim.url}/`, { method: "POST", body: JSON.stringify(command), headers: H });
        return { status: res.status, body: await res.text() };
      };
      const [db3, db0, wrong] = shims as [Shim, Shim, Shim];
      expect(await send(db3, ["SET", "where", "db3"])).toEqual({ status: 200, body: '{"result":"OK"}' });
      expect(await send(db3, ["GET", "where"])).toEqual({ status: 200, body: '{"result":"db3"}' });
      expect(await send(db0, ["GET", "where"])).toEqual({ status: 200, body: '{"result":null}' });
      const refused = await send(wrong, ["PING"]);
      expect(refused.status).toBe(503);
      expect(refused.body).toMatch(/^\{"error":"ERR Redis is unreachable: WRONGPASS /);
    } finally {
      await Promise.all(shims.map((shim) => shim.close()));
      await redis.stop();
    }
  });
});

describe("when Redis is unreachable", () => {
  it("Should end a subscription's stream when Redis goes away, so that the client knows it may have missed messages (§11.7)", async () => {
    const redis = await startRedisServer();
    const own = await startShim({ redisUrl: redis.url, token: TOKEN, port: 0 });
    try {
      const res = await fetch(`${own.url}/subscribe/news`, { method: "POST", body: "[]", headers: H });
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      expect((await reader.read()).value).toBe("data: subscribe,news,1\n\n");
      await redis.stop();
      const next = reader.read().then(({ done }) => (done ? "ended" : "a frame"));
      expect(await Promise.race([next, new Promise((resolve) => setTimeout(resolve, 3_000, "still open"))])).toBe("ended");
    } finally {
      await own.close();
      await redis.stop();
    }
  });

  it("Should start anyway, answer 503 saying why, and serve once Redis comes up", async () => {
    const port = await freePort();
    const own = await startShim({ redisUrl: `redis://127.0.0.1:${port}`, token: TOKEN, port: 0 });
    let redis: Awaited<ReturnType<typeof startRedisServer>> | undefined;
    try {
      const ping = async () => {
        const res = await fetch(`${own.url}/`, { method: "POST", body: '["PING"]', headers: H });
        return { status: res.status, body: await res.text() };
      };
      expect(await ping()).toEqual({ status: 503, body: `{"error":"ERR Redis is unreachable: connect ECONNREFUSED 127.0.0.1:${port}"}` });
      redis = await startRedisServer({ port });
      await vi.waitFor(async () => expect(await ping()).toEqual({ status: 200, body: '{"result":"PONG"}' }), { timeout: 10_000, interval: 50 });
    } finally {
      await own.close();
      await redis?.stop();
    }
  });

  it("Should answer 503 with JSON at once, and serve again once Redis is back on the same port", async () => {
    const redis = await startRedisServer();
    const port = Number(new URL(redis.url).port);
    const own = await startShim({ redisUrl: redis.url, token: TOKEN, port: 0 });
    let again: Awaited<ReturnType<typeof startRedisServer>> | undefined;
    try {
      const ping = async () => {
        const res = await fetch(`${own.url}/pipeline`, { method: "POST", body: '[["PING"]]', headers: H });
        return { status: res.status, body: await res.text() };
      };
      expect(await ping()).toEqual({ status: 200, body: '[{"result":"PONG"}]' });
      await redis.stop();
      const down = await ping();
      expect(down.status).toBe(503);
      expect(JSON.parse(down.body).error).toMatch(/^ERR Redis is unreachable: /);
      again = await startRedisServer({ port });
      await vi.waitFor(async () => expect(await ping()).toEqual({ status: 200, body: '[{"result":"PONG"}]' }), { timeout: 10_000, interval: 50 });
    } finally {
      await own.close();
      await again?.stop();
      await redis.stop();
    }
  });
});
