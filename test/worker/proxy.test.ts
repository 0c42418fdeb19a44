import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type Echo, testApp, uniqueIpv4 } from "./helpers.ts";

describe("the Worker, end to end", () => {
  it("Should forward an allowed request to the origin and add the rate-limit headers to its answer", async () => {
    const res = await exports.default.fetch("https://example.com/hello?x=1", { headers: { "cf-connecting-ip": uniqueIpv4() } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-demo-origin")).toBe("1");
    expect(res.headers.get("ratelimit-policy")).toBe('"default";q=100;w=60');
    expect(res.headers.get("ratelimit")).toMatch(/^"default";r=99;t=\d+$/);
    expect(await res.json()).toMatchObject({ method: "GET", url: "/hello?x=1" });
  });

  it("Should forward method, path, query, headers and a streamed body intact, and never the Upstash token", async () => {
    const t = testApp();
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"name":"ratewall",'));
        controller.enqueue(new TextEncoder().encode('"emoji":"⏱"}'));
        controller.close();
      },
    });
    const res = await t.request("/v1/items/%C3%A9t%C3%A9?q=a%20b&tag=x&tag=y", {
      method: "PUT",
      body,
      duplex: "half",
      ip: uniqueIpv4(),
      headers: { "content-type": "application/json", "x-request-id": "abc", authorization: "Bearer client-token", "upstash-encoding": "base64" },
    } as RequestInit & { ip: string; headers: Record<string, string> });
    const echo = (await res.json()) as Echo;
    expect(echo).toMatchObject({ method: "PUT", url: "/v1/items/%C3%A9t%C3%A9?q=a%20b&tag=x&tag=y", body: '{"name":"ratewall","emoji":"⏱"}' });
    expect(echo.headers).toMatchObject({
      "content-type": "application/json",
      "x-request-id": "abc",
      authorization: "Bearer client-token",
      "x-forwarded-host": "example.com",
    });
    expect(echo.headers["upstash-encoding"]).toBeUndefined();
    expect(JSON.stringify(echo)).not.toContain(env.UPSTASH_REDIS_REST_TOKEN);
  });

  it("Should answer 502 with a clear body when the origin cannot be reached", async () => {
    const t = testApp({ ORIGIN_URL: "http://127.0.0.1:1" });
    const res = await t.get("/", uniqueIpv4());
    expect(res.status).toBe(502);
    expect(await res.text()).toBe("Bad Gateway: The origin could not be reached.");
    expect(t.logs).toContainEqual(expect.objectContaining({ event: "origin-failure", kind: "network" }));
  });

  it("Should log an origin that is down once per 10 s, with the failures it did not log, while every request still gets its 502", async () => {
    const t = testApp({ ORIGIN_URL: "http://127.0.0.1:1", RATE_LIMIT: "1000/1m" });
    const statuses: number[] = [];
    for (const advance of [0, 1_000, 1_000, 8_000, 1_000]) {
      t.clock.now += advance;
      statuses.push((await t.get("/", uniqueIpv4())).status);
    }
    expect(statuses).toEqual([502, 502, 502, 502, 502]);
    const lines = t.logs.filter((entry) => entry.event === "origin-failure").map(({ kind, suppressed }) => ({ kind, suppressed }));
    expect(lines).toEqual([
      { kind: "network", suppressed: undefined },
      { kind: "network", suppressed: 2 },
    ]);
  });

  it("Should log a down zone origin once per 10 s whatever host each client names, where each host would be an origin of its own", async () => {
    const down = (async () => {
      throw new TypeError("Network connection lost.");
    }) as typeof fetch;
    const t = testApp({ RATE_LIMIT: "1000/1m", ORIGIN_URL: undefined }, { originFetch: down });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await t.request(`https://h${i}.example.com/`, { ip: uniqueIpv4() })).status);
    expect(statuses).toEqual([502, 502, 502, 502, 502]);
    expect(t.logs.filter((entry) => entry.event === "origin-failure").map((entry) => entry.origin)).toEqual(["https://h0.example.com"]);
  });

  it("Should answer 400, counted and logged once, for a path that would climb above ORIGIN_URL's path, and never ask the origin", async () => {
    let asked = 0;
    const t = testApp(
      { ORIGIN_URL: `${env.ORIGIN_URL}/base` },
      {
        originFetch: (input, init) => {
          asked++;
          return fetch(input, init);
        },
      },
    );
    const res = await t.get("/..;/admin", uniqueIpv4());
    expect([res.status, await res.text()]).toEqual([400, "Bad Request: The path climbs above the origin's path as an origin reads it."]);
    expect(res.headers.get("ratelimit")).toMatch(/^"default";r=99;/);
    expect(asked).toBe(0);
    // Once per isolate, as ambiguous-path: a route that counts nothing would let a client write one line per request.
    expect((await t.get("/..%2Fadmin", uniqueIpv4())).status).toBe(400);
    expect(t.logs).toEqual([expect.objectContaining({ level: "warn", event: "path-above-origin", path: "/..;/admin", origin: env.ORIGIN_URL })]);
  });

  it("Should still answer 502 when its log function throws while reporting the origin's failure", async () => {
    const t = testApp(
      { ORIGIN_URL: "http://127.0.0.1:1" },
      {
        log: () => {
          throw new Error("log sink down");
        },
      },
    );
    expect((await t.get("/", uniqueIpv4())).status).toBe(502);
  });

  it("Should answer 502 after one hop, not loop, when the request's own URL leads back to the Worker (wrangler dev without ORIGIN_URL)", async () => {
    let hops = 0;
    let app: ReturnType<typeof testApp>["app"] | undefined;
    const backToTheWorker = ((input: Request) => {
      hops++;
      return app!.fetch(input, env);
    }) as typeof fetch;
    const t = testApp({ ORIGIN_URL: undefined }, { originFetch: backToTheWorker });
    app = t.app;
    for (const url of [
      "http://localhost:8787/x",
      "http://localhost.:8787/x",
      "http://app.localhost.:8787/x",
      "http://127.0.0.1:8787/x",
      "http://[::1]:8787/x",
      "http://192.168.1.5:8787/x",
    ]) {
      hops = 0;
      const res = await t.get(url, uniqueIpv4());
      expect(res.status, url).toBe(502);
      expect(await res.text()).toBe("Bad Gateway: No origin is configured (ORIGIN_URL).");
      expect(hops, url).toBe(1);
    }
    expect(t.logs).toContainEqual(expect.objectContaining({ event: "origin-failure", kind: "loop", origin: "http://localhost:8787" }));
  });

  it("Should answer 504 when the origin does not answer within ORIGIN_TIMEOUT_MS", async () => {
    const hang = ((request: Request) =>
      new Promise<Response>((_, reject) => request.signal.addEventListener("abort", () => reject(new Error("aborted"))))) as typeof fetch;
    const t = testApp({ ORIGIN_TIMEOUT_MS: "50" }, { originFetch: hang });
    const res = await t.get("/", uniqueIpv4(), { accept: "application/json" });
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ title: "Gateway Timeout", status: 504 });
  });

  it("Should pass the origin's redirect to the client unchanged, with its Location and Set-Cookie, instead of following it", async () => {
    const t = testApp();
    const answer = { path: "/login", status: 302, headers: { location: "/elsewhere", "set-cookie": "session=abc; Path=/; HttpOnly" } };
    const res = await t.get("/login", uniqueIpv4(), { "x-origin-answer": JSON.stringify(answer) });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/elsewhere");
    expect(res.headers.get("set-cookie")).toBe("session=abc; Path=/; HttpOnly");
  });

  it("Should point the origin's redirect to itself at the address the client used, under the origin's path prefix too", async () => {
    const redirect = (path: string, location: string) => JSON.stringify({ path, status: 302, headers: { location } });
    const plain = testApp();
    const absolute = await plain.get("/old", uniqueIpv4(), { "x-origin-answer": redirect("/old", `${env.ORIGIN_URL}/new?x=1`) });
    expect(absolute.headers.get("location")).toBe("https://example.com/new?x=1");
    const elsewhere = await plain.get("/old", uniqueIpv4(), { "x-origin-answer": redirect("/old", "https://login.example.net/sso") });
    expect(elsewhere.headers.get("location")).toBe("https://login.example.net/sso");
    const prefixed = testApp({ ORIGIN_URL: `${env.ORIGIN_URL}/pre` });
    const underPrefix = await prefixed.get("/old", uniqueIpv4(), { "x-origin-answer": redirect("/pre/old", "/pre/new") });
    expect(underPrefix.headers.get("location")).toBe("/new");
    const absoluteUnderPrefix = await prefixed.get("/old", uniqueIpv4(), { "x-origin-answer": redirect("/pre/old", `${env.ORIGIN_URL}/pre/new#top`) });
    expect(absoluteUnderPrefix.headers.get("location")).toBe("https://example.com/new#top");
    const schemeRelative = await prefixed.get("/old", uniqueIpv4(), {
      "x-origin-answer": redirect("/pre/old", `${String(env.ORIGIN_URL).replace(/^https?:/, "")}/pre/new`),
    });
    expect(schemeRelative.headers.get("location")).toBe("/new");
  });

  it.each([
    ["GET", "x=1"],
    ["HEAD", ""],
  ])("Should forward a %s sent with a body (%j) to the origin without it, instead of answering 502", async (method, body) => {
    const t = testApp();
    // workerd hands the Worker such a request as a client sent it (curl -X GET -d x=1, or an
    // empty chunked body), but its Request constructor refuses to build one: the test builds a
    // POST and has it read as the method.
    class WithBody extends Request {
      override get method() {
        return method;
      }
    }
    const headers = { "cf-connecting-ip": uniqueIpv4(), "content-type": "application/x-www-form-urlencoded", "content-length": String(body.length) };
    const res = await t.app.fetch(new WithBody("https://example.com/search", { method: "POST", body, headers }), env);
    expect(t.logs.filter((entry) => entry.event === "origin-failure")).toEqual([]);
    expect(res.status).toBe(200);
    if (method !== "GET") return;
    const echo = (await res.json()) as Echo;
    expect(echo).toMatchObject({ method: "GET", url: "/search", body: "" });
    // The client's Content-Length no longer describes what is sent: an origin would wait for it.
    expect(echo.headers["content-length"]).toBeUndefined();
  });

  it.each(["gzip", "br"])("Should answer a %s body, which the runtime decodes, without its Content-Encoding and Content-Length", async (encoding) => {
    const t = testApp();
    const res = await t.get("/packed", uniqueIpv4(), { "x-origin-answer": JSON.stringify({ encoding }) });
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(res.headers.get("content-length")).toBeNull();
    expect(await res.json()).toMatchObject({ method: "GET", url: "/packed" });
  });

  it.each([
    ["deflate", ["deflate"]],
    ["gzip, gzip", ["gzip", "gzip"]],
  ] as const)("Should answer a %j body, which the runtime leaves encoded, with its Content-Encoding", async (encoding, decoders) => {
    const t = testApp();
    const res = await t.get("/packed", uniqueIpv4(), { "x-origin-answer": JSON.stringify({ encoding }) });
    expect(res.headers.get("content-encoding")).toBe(encoding);
    const encoded = await res.arrayBuffer();
    expect(res.headers.get("content-length")).toBe(String(encoded.byteLength));
    let body = new Response(encoded).body!;
    for (const format of decoders) body = body.pipeThrough(new DecompressionStream(format));
    expect(await new Response(body).json()).toMatchObject({ method: "GET", url: "/packed" });
  });

  it("Should not forward Proxy-Connection, which RFC 9110 §7.6.1 names among the fields an intermediary removes", async () => {
    const t = testApp();
    const res = await t.get("/", uniqueIpv4(), { "proxy-connection": "keep-alive", "x-request-id": "abc" });
    const echo = (await res.json()) as Echo;
    expect(echo.headers["x-request-id"]).toBe("abc");
    expect(echo.headers["proxy-connection"]).toBeUndefined();
  });

  it("Should count a slow upload within ORIGIN_TIMEOUT_MS, as the README says, and answer 504", async () => {
    const t = testApp({ ORIGIN_TIMEOUT_MS: "250" });
    // Five chunks 100 ms apart: the origin has its answer ready as soon as the body ends, 500 ms in.
    let chunks = 0;
    const body = new ReadableStream({
      async pull(controller) {
        if (chunks++ === 5) return controller.close();
        await new Promise((resolve) => setTimeout(resolve, 100));
        controller.enqueue(new TextEncoder().encode("x".repeat(1000)));
      },
    });
    const res = await t.request("/upload", { method: "POST", body, duplex: "half", ip: uniqueIpv4(), headers: {} } as RequestInit & {
      ip: string;
      headers: Record<string, string>;
    });
    expect(res.status).toBe(504);
  });

  it("Should proxy a WebSocket: the origin's 101 reaches the client with its socket, and messages go both ways", async () => {
    const t = testApp();
    // A browser's handshake (RFC 6455 §4.1): its key and version go to the origin with the rest.
    const handshake = { upgrade: "websocket", connection: "Upgrade", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13" };
    const res = await t.get("/chat", uniqueIpv4(), handshake);
    expect(res.status).toBe(101);
    expect(res.headers.get("ratelimit")).toMatch(/^"default";r=99;t=\d+$/);
    const socket = res.webSocket!;
    socket.accept();
    const echoed = new Promise((resolve) => socket.addEventListener("message", (event) => resolve(event.data)));
    socket.send("hello");
    expect(await echoed).toBe("/chat: hello");
    socket.close();
  });

  it("Should not forward an Upgrade to anything but a WebSocket, since the answer could not carry it", async () => {
    const t = testApp();
    const res = await t.get("/", uniqueIpv4(), { upgrade: "h2c", connection: "Upgrade" });
    const echo = (await res.json()) as Echo;
    expect(echo.headers.upgrade).toBeUndefined();
  });
});
