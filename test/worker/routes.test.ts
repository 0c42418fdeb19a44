import { describe, expect, it } from "vitest";
import { testApp, uniqueIpv4, uniqueIpv6Prefix } from "./helpers.ts";

describe("routes, end to end", () => {
  it("Should apply every rule of a route in one decision, refusing on whichever is exhausted first", async () => {
    const t = testApp({ ROUTES: [{ pattern: "*/login*", rules: ["2/1s", "3/1m"] }] });
    const ip = uniqueIpv4();
    expect((await t.get("/login", ip)).status).toBe(200);
    const second = await t.get("/login", ip);
    expect(second.headers.get("ratelimit-policy")).toBe('"2-per-1s";q=2;w=1, "3-per-1m";q=3;w=60');
    expect(second.headers.get("ratelimit")).toMatch(/^"2-per-1s";r=0;t=\d+, "3-per-1m";r=1;t=\d+$/);
    expect((await t.get("/login", ip)).status).toBe(429);

    t.clock.now += 1_000;
    expect((await t.get("/login", ip)).status).toBe(200);
    t.clock.now += 1_000;
    const hourly = await t.get("/login", ip);
    expect(hourly.status).toBe(429);
    expect(Number(hourly.headers.get("retry-after"))).toBeGreaterThan(1);
  });

  it("Should not charge any rule for a refused request (all-or-nothing)", async () => {
    const t = testApp({ ROUTES: [{ pattern: "*/login*", rules: ["1/1s", "5/1m"] }] });
    const ip = uniqueIpv4();
    await t.get("/login", ip);
    for (let i = 0; i < 3; i++) expect((await t.get("/login", ip)).status).toBe(429);
    t.clock.now += 1_000;
    const res = await t.get("/login", ip);
    expect(res.headers.get("ratelimit")).toMatch(/"5-per-1m";r=3;/);
  });

  it("Should pick the most specific route, and keep a disguised path on it", async () => {
    const t = testApp({
      RATE_LIMIT: "100/1m",
      ROUTES: [
        { pattern: "*example.com/*", rules: "50/1m" },
        { pattern: "example.com/login*", rules: "1/1m" },
        { pattern: "example.com/health", unlimited: true },
      ],
    });
    const ip = uniqueIpv4();
    expect((await t.get("/login", ip)).headers.get("ratelimit-policy")).toBe('"default";q=1;w=60');
    for (const path of ["/LOGIN", "/static/%2e%2e/login", "//login", "/%6cogin"]) expect((await t.get(path, ip)).status, path).toBe(429);
    expect((await t.get("/static/..%2Flogin", ip)).status).toBe(400);
    expect((await t.get("https://www.example.com/login", ip)).headers.get("ratelimit-policy")).toBe('"default";q=50;w=60');
    expect((await t.get("https://other.test/login", ip)).headers.get("ratelimit-policy")).toBe('"default";q=100;w=60');
    const health = await t.get("/health", ip);
    expect(health.status).toBe(200);
    expect(health.headers.get("ratelimit")).toBeNull();
  });

  it("Should limit a route whose path is non-ASCII or percent-encoded on every spelling of that path", async () => {
    const t = testApp({
      RATE_LIMIT: "100/1m",
      ROUTES: [
        { pattern: "example.com/café", rules: "1/1m" },
        { pattern: "example.com/docs/my%20file", rules: "1/1m" },
      ],
    });
    const ip = uniqueIpv4();
    expect((await t.get("/caf%C3%A9", ip)).headers.get("ratelimit-policy")).toBe('"default";q=1;w=60');
    // `e` + U+0301 is `é` in Unicode's decomposed form, which macOS file names and some clients send.
    for (const path of ["/café", "/CAF%C3%89", "/caf%C3%A9/", "/cafe%CC%81", "/CAFE%CC%81"]) expect((await t.get(path, ip)).status, path).toBe(429);
    expect((await t.get("/docs/my file", ip)).status).toBe(200);
    expect((await t.get("/docs/my%20file", ip)).status).toBe(429);
  });

  it("Should limit a route on a host in another script than ASCII, which requests carry in its ASCII form", async () => {
    const t = testApp({
      RATE_LIMIT: "100/1m",
      ROUTES: [{ pattern: "*.bücher.example/kasse*", rules: "1/1m" }],
    });
    const ip = uniqueIpv4();
    const checkout = new URL("https://shop.bücher.example/kasse").href;
    expect(checkout).toBe("https://shop.xn--bcher-kva.example/kasse");
    expect((await t.get(checkout, ip)).headers.get("ratelimit-policy")).toBe('"default";q=1;w=60');
    expect((await t.get(checkout, ip)).status).toBe(429);
    expect((await t.get("https://shop.xn--bcher-kva.example/katalog", ip)).headers.get("ratelimit-policy")).toBe('"default";q=100;w=60');
  });

  it("Should count HEAD on a route that lists GET, so a refused GET does not continue as HEAD on the default budget", async () => {
    const t = testApp({ RATE_LIMIT: "100/1m", ROUTES: [{ pattern: "*/export*", rules: "2/1m", methods: ["GET"] }] });
    const ip = uniqueIpv4();
    expect((await t.get("/export", ip)).status).toBe(200);
    expect((await t.request("/export", { ip, method: "HEAD" })).status).toBe(200);
    expect((await t.get("/export", ip)).status).toBe(429);
    const head = await t.request("/export", { ip, method: "HEAD" });
    expect(head.status).toBe(429);
    expect(head.headers.get("ratelimit-policy")).toBe('"default";q=2;w=60');
    expect((await t.request("/export", { ip, method: "POST" })).headers.get("ratelimit-policy")).toBe('"default";q=100;w=60');
  });

  it("Should leave a browser's CORS preflights uncounted with README's route for them, so a browser keeps its whole budget", async () => {
    const t = testApp({
      ROUTES: [
        { pattern: "example.com/*", methods: ["OPTIONS"], unlimited: true, name: "preflight" },
        { pattern: "example.com/*", rules: "2/1m" },
      ],
    });
    const ip = uniqueIpv4();
    const preflight = { ip, method: "OPTIONS", headers: { origin: "https://app.test", "access-control-request-method": "PUT" } };
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      expect((await t.request("/items/1", preflight)).headers.get("ratelimit")).toBeNull();
      statuses.push((await t.request("/items/1", { ip, method: "PUT", body: "{}" })).status);
    }
    expect(statuses).toEqual([200, 200, 429]);
  });

  it("Should announce quotas and counts in requests on a route whose requests cost 2, so that r=N means N more pass", async () => {
    const t = testApp({ RATE_LIMIT_HEADERS: "both", ROUTES: [{ pattern: "*/api*", rules: ["5/1m"], cost: 2 }] });
    const ip = uniqueIpv4();
    const seen = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.get("/api", ip);
      const headers = ["ratelimit-policy", "ratelimit", "x-ratelimit-limit", "x-ratelimit-remaining"].map((name) => res.headers.get(name));
      seen.push([res.status, ...headers]);
    }
    expect(seen).toEqual([
      [200, '"default";q=2;w=60', '"default";r=1;t=60', "2", "1"],
      [200, '"default";q=2;w=60', '"default";r=0;t=60', "2", "0"],
      [429, '"default";q=2;w=60', '"default";r=0;t=60', "2", "0"],
    ]);
    // A token bucket announces the burst's whole requests, and the time to refill what they spend.
    const bucket = testApp({ ROUTES: [{ pattern: "*/api*", rules: [{ limit: 10, window: "10s", algorithm: "token-bucket", burst: 5 }], cost: 2 }] });
    expect((await bucket.get("/api", ip)).headers.get("ratelimit-policy")).toBe('"default";q=2;w=4');
  });

  it("Should send each route to its own origin", async () => {
    const t = testApp({ ROUTES: [{ pattern: "*/broken/*", rules: "10/1s", origin: "http://127.0.0.1:1" }] });
    expect((await t.get("/ok", uniqueIpv4())).status).toBe(200);
    expect((await t.get("/broken/x", uniqueIpv4())).status).toBe(502);
  });

  it("Should count a whole IPv6 /64 as one client, and IPv4-mapped IPv6 as the IPv4 address", async () => {
    const t = testApp({ RATE_LIMIT: "2/1m" });
    const prefix = uniqueIpv6Prefix();
    expect((await t.get("/", `${prefix}::1`)).status).toBe(200);
    expect((await t.get("/", `${prefix}:aaaa:bbbb:cccc:dddd`)).status).toBe(200);
    expect((await t.get("/", `${prefix}:ffff::9`)).status).toBe(429);
    expect((await t.get("/", `${uniqueIpv6Prefix()}::1`)).status).toBe(200);

    const ip = uniqueIpv4();
    await t.get("/", ip);
    await t.get("/", `::ffff:${ip}`);
    expect((await t.get("/", ip)).status).toBe(429);
  });

  it("Should count API-key routes per key, whatever the address", async () => {
    const t = testApp({ ROUTES: [{ pattern: "*/api/*", rules: "1/1m", key: "header:x-api-key" }] });
    const key = `sk_${Math.random()}`;
    expect((await t.get("/api/a", uniqueIpv4(), { "x-api-key": key })).status).toBe(200);
    expect((await t.get("/api/a", uniqueIpv4(), { "x-api-key": key })).status).toBe(429);
    expect((await t.get("/api/a", uniqueIpv4(), { "x-api-key": `${key}-other` })).status).toBe(200);
  });
});
