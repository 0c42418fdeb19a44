import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { testApp, uniqueIpv4 } from "./helpers.ts";

/** A request as Cloudflare delivers it, with `request.cf` set. */
function withCf(url: string, ip: string, cf: Record<string, unknown>, init: RequestInit = {}): Request {
  const request = new Request(url, { ...init, headers: { "cf-connecting-ip": ip, ...(init.headers as Record<string, string>) } });
  Object.defineProperty(request, "cf", { value: cf });
  return request;
}

describe("static allow and deny lists, end to end", () => {
  it("Should answer 403 problem details to a denied address without a Redis call", async () => {
    const t = testApp({ DENY: ["ip:198.51.100.0/24"] });
    const res = await t.get("/", "198.51.100.77", { accept: "application/json" });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ title: "Forbidden", status: 403 });
    expect(t.counter.redisCalls).toBe(0);
  });

  it("Should forward an allowed address without counting it and without a Redis call, past any limit", async () => {
    const t = testApp({ RATE_LIMIT: "1/1m", ALLOW: '["ip:2001:db8:42::/48"]' });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await t.get("/", "2001:db8:42:7::1")).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(t.counter.redisCalls).toBe(0);
    const other = uniqueIpv4();
    await t.get("/", other);
    expect((await t.get("/", other)).status).toBe(429);
  });

  it("Should deny by country and ASN from request.cf", async () => {
    const t = testApp({ DENY: ["country:T1", "asn:64496"] });
    expect((await t.app.request(withCf("https://example.com/", uniqueIpv4(), { country: "T1" }), undefined, env)).status).toBe(403);
    expect((await t.app.request(withCf("https://example.com/", uniqueIpv4(), { country: "DE", asn: 64496 }), undefined, env)).status).toBe(403);
    expect((await t.app.request(withCf("https://example.com/", uniqueIpv4(), { country: "DE", asn: 13335 }), undefined, env)).status).toBe(200);
  });

  it("Should let a route's own lists decide before the global ones", async () => {
    const t = testApp({
      DENY: ["ip:203.0.113.0/24"],
      ROUTES: [{ pattern: "*/office/*", rules: "1/1m", allow: ["ip:203.0.113.10"], deny: ["ip:192.0.2.66"] }],
    });
    expect((await t.get("/office/x", "203.0.113.10")).status).toBe(200);
    expect((await t.get("/other", "203.0.113.10")).status).toBe(403);
    expect((await t.get("/office/x", "192.0.2.66")).status).toBe(403);
  });
});

describe("routes by method, end to end", () => {
  it("Should limit only the methods a route names, and send others to the next route", async () => {
    const t = testApp({ RATE_LIMIT: "100/1m", ROUTES: [{ pattern: "*/login", name: "login-post", rules: "1/1m", methods: ["post"] }] });
    const ip = uniqueIpv4();
    expect((await t.request("/login", { method: "POST", ip })).status).toBe(200);
    expect((await t.request("/login", { method: "POST", ip })).status).toBe(429);
    const get = await t.request("/login", { ip });
    expect(get.status).toBe(200);
    expect(get.headers.get("ratelimit-policy")).toBe('"default";q=100;w=60');
  });
});

describe("key sources, end to end", () => {
  it("Should count each session cookie on its own, and fall back to the address without one", async () => {
    const t = testApp({ ROUTES: [{ pattern: "*/app/*", rules: "1/1m", key: "cookie:session" }] });
    const ip = uniqueIpv4();
    expect((await t.get("/app/x", ip, { cookie: "theme=dark; session=alpha" })).status).toBe(200);
    expect((await t.get("/app/x", ip, { cookie: "session=alpha" })).status).toBe(429);
    expect((await t.get("/app/x", ip, { cookie: "session=beta" })).status).toBe(200);
    expect((await t.get("/app/x", ip)).status).toBe(200);
    expect((await t.get("/app/x", ip)).status).toBe(429);
    expect(t.logs).toContainEqual(expect.objectContaining({ event: "client-fallback", reason: "missing-key" }));
  });

  it("Should count each query key on its own, and a composite of address and user agent as one client", async () => {
    const t = testApp({
      ROUTES: [
        { pattern: "*/q/*", rules: "1/1m", key: "query:api_key" },
        { pattern: "*/c/*", rules: "1/1m", key: ["ip", "header:user-agent"] },
      ],
    });
    const ip = uniqueIpv4();
    expect((await t.get("/q/x?api_key=one", ip)).status).toBe(200);
    expect((await t.get("/q/y?api_key=one", ip)).status).toBe(429);
    expect((await t.get("/q/x?api_key=two", ip)).status).toBe(200);
    expect((await t.get("/c/x", ip, { "user-agent": "curl/8" })).status).toBe(200);
    expect((await t.get("/c/x", ip, { "user-agent": "curl/8" })).status).toBe(429);
    expect((await t.get("/c/x", ip, { "user-agent": "Firefox" })).status).toBe(200);
    expect((await t.get("/c/x", uniqueIpv4(), { "user-agent": "curl/8" })).status).toBe(200);
  });

  it("Should count a whole country as one client with cf:country", async () => {
    const t = testApp({ ROUTES: [{ pattern: "*/geo/*", rules: "1/1m", key: "cf:country" }] });
    expect((await t.app.request(withCf("https://example.com/geo/x", uniqueIpv4(), { country: "NZ" }), undefined, env)).status).toBe(200);
    expect((await t.app.request(withCf("https://example.com/geo/x", uniqueIpv4(), { country: "NZ" }), undefined, env)).status).toBe(429);
    expect((await t.app.request(withCf("https://example.com/geo/x", uniqueIpv4(), { country: "FR" }), undefined, env)).status).toBe(200);
  });
});
