import { describe, expect, it } from "vitest";
import { MAX_FAILED_ATTEMPTS } from "../../src/admin/admin-api.ts";
import type { AppDeps } from "../../src/app.ts";
import { RedisRestError } from "../../src/errors.ts";
import { createLimiter } from "../../src/limiter/create-limiter.ts";
import { BLOCK_RECHECK_MS } from "../../src/block-cache.ts";
import { testApp, uniqueIpv4, uniqueIpv6Prefix } from "./helpers.ts";

const ADMIN_TOKEN = "adm1n-t0ken-for-the-end-to-end-tests-0123456789";
const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** An app with the admin API on, whose origin fetches are counted. */
function adminApp(vars: Record<string, unknown> = {}, deps: Partial<AppDeps> = {}) {
  const origin = { calls: 0 };
  const t = testApp(
    { ADMIN_TOKEN, RATE_LIMIT: "5/1m", ...vars },
    {
      ...deps,
      originFetch: (input, init) => {
        origin.calls++;
        return fetch(input, init);
      },
    },
  );
  const admin = (
    path: string,
    { method = "GET", ip = "192.0.2.1", headers = bearer }: { method?: string; ip?: string; headers?: Record<string, string> } = {},
  ) => t.request(`/__ratewall/${path}`, { method, ip, headers });
  return { ...t, origin, admin };
}

describe("the admin API: status", () => {
  it("Should report a client's remaining quota without spending any, so the client can then spend exactly that much", async () => {
    const t = adminApp();
    const ip = uniqueIpv4();
    await t.get("/", ip);
    await t.get("/", ip);
    const first = await t.admin(`status?client=${ip}`);
    expect(first.status).toBe(200);
    const body = await first.json();
    expect(body).toEqual({
      client: ip,
      route: "default",
      staticList: null,
      list: null,
      listTtlMs: null,
      rules: [{ name: "default", algorithm: "fixed-window", limit: 5, windowMs: 60_000, remaining: 3, resetMs: 60_000 }],
    });
    expect(await (await t.admin(`status?client=${ip}`)).json()).toEqual(body);
    const spent = [];
    for (let i = 0; i < 3; i++) spent.push((await t.get("/", ip)).status);
    expect(spent).toEqual([200, 200, 200]);
    expect((await t.get("/", ip)).status).toBe(429);
  });

  it("Should give a token bucket's quota as its RateLimit-Policy does: the burst, and the time the bucket takes to refill it", async () => {
    const t = adminApp({ RATE_LIMIT: { limit: 1, window: "1s", algorithm: "token-bucket", burst: 10 } });
    const ip = uniqueIpv4();
    const answer = await t.get("/", ip);
    expect(answer.headers.get("ratelimit-policy")).toBe('"default";q=10;w=10');
    const status = (await (await t.admin(`status?client=${ip}`)).json()) as { rules: unknown[] };
    // 10 per 1 s would be ten times the rate the bucket sustains.
    expect(status.rules).toEqual([{ name: "default", algorithm: "token-bucket", limit: 10, windowMs: 10_000, remaining: 9, resetMs: expect.any(Number) }]);
  });

  it("Should give quotas and what is left in requests of the route's cost, as its RateLimit headers do", async () => {
    const t = adminApp({ RATE_LIMIT: "unlimited", ROUTES: [{ pattern: "*/api*", name: "api", rules: ["5/1m"], cost: 2 }] });
    const ip = uniqueIpv4();
    expect((await t.get("/api", ip)).headers.get("ratelimit")).toBe('"default";r=1;t=60');
    const status = (await (await t.admin(`status?client=${ip}&route=api`)).json()) as { rules: unknown[] };
    expect(status.rules).toEqual([{ name: "default", algorithm: "fixed-window", limit: 2, windowMs: 60_000, remaining: 1, resetMs: 60_000 }]);
  });

  it("Should say what the settings' lists decide for an address, as its requests find it: the route's lists before the global ones", async () => {
    const t = adminApp({ DENY: ["ip:198.51.100.0/24"], ROUTES: [{ pattern: "*/api/*", name: "api", allow: ["ip:198.51.100.7"], rules: "5/1m" }] });
    const staticList = async (client: string, route: string) =>
      ((await (await t.admin(`status?client=${client}&route=${route}`)).json()) as { staticList: unknown }).staticList;
    expect(await staticList("198.51.100.7", "default")).toBe("deny");
    expect(await staticList("198.51.100.7", "api")).toBe("allow");
    expect(await staticList("198.51.100.8", "api")).toBe("deny");
    expect(await staticList(uniqueIpv4(), "api")).toBeNull();
    expect((await t.get("/", "198.51.100.7")).status).toBe(403);
    expect((await t.get("/api/items", "198.51.100.7")).status).toBe(200);
    expect((await t.get("/api/items", "198.51.100.8")).status).toBe(403);
  });

  it("Should say what the settings' lists decide for an AS number or a country, and nothing for a hashed key", async () => {
    const t = adminApp({
      DENY: ["asn:64496", "country:T1"],
      ROUTES: [
        { pattern: "*/asn/*", name: "asn", key: "cf:asn", rules: "5/1m" },
        { pattern: "*/geo/*", name: "geo", key: "cf:country", rules: "5/1m" },
        { pattern: "*/api/*", name: "api", key: "header:x-api-key", rules: "5/1m" },
      ],
    });
    const staticList = async (client: string, route: string) =>
      ((await (await t.admin(`status?client=${client}&route=${route}`)).json()) as { staticList: unknown }).staticList;
    expect(await staticList("asn:64496", "asn")).toBe("deny");
    expect(await staticList("asn:64497", "asn")).toBeNull();
    expect(await staticList("country:T1", "geo")).toBe("deny");
    expect(await staticList("country:DE", "geo")).toBeNull();
    expect(await staticList(`key:${"0".repeat(32)}`, "api")).toBeNull();
  });

  it("Should give an IPv6 client's /64, as the logs print it, the settings' verdict its addresses get when an entry covers the whole /64", async () => {
    const t = adminApp({ DENY: ["ip:2001:db8:dead::/48", "asn:64496"] });
    const staticList = async (client: string) =>
      ((await (await t.admin(`status?client=${encodeURIComponent(client)}`)).json()) as { staticList: unknown }).staticList;
    expect((await t.get("/", "2001:db8:dead::1")).status).toBe(403);
    expect(await staticList("2001:db8:dead::1")).toBe("deny");
    expect(await staticList("2001:db8:dead::/64")).toBe("deny");
    expect(await staticList("2001:db8:beef::/64")).toBeNull();
  });

  it("Should report no settings' verdict for a /64 that an entry narrower than it decides only in part, and the address's own verdict for an address", async () => {
    const t = adminApp({
      DENY: ["ip:2001:db8:beef::7"],
      ROUTES: [{ pattern: "*/api/*", name: "api", allow: ["ip:2001:db8:cafe::/80", "ip:2001:db8:beef::/56"], rules: "5/1m" }],
    });
    const staticList = async (client: string, route = "default") =>
      ((await (await t.admin(`status?client=${encodeURIComponent(client)}&route=${route}`)).json()) as { staticList: unknown }).staticList;
    expect((await t.get("/", "2001:db8:beef::7")).status).toBe(403);
    expect((await t.get("/", "2001:db8:beef::8")).status).toBe(200);
    expect(await staticList("2001:db8:beef::7")).toBe("deny");
    expect(await staticList("2001:db8:beef::8")).toBeNull();
    expect(await staticList("2001:db8:beef::/64")).toBeNull();
    expect(await staticList("2001:db8:cafe::1", "api")).toBe("allow");
    expect(await staticList("2001:db8:cafe::/64", "api")).toBeNull();
    // The route's lists decide before the global ones: its wider allow holds for all of the /64.
    expect(await staticList("2001:db8:beef::/64", "api")).toBe("allow");
    expect((await t.get("/api/items", "2001:db8:beef::7")).status).toBe(200);
  });

  it("Should normalize the client as requests are: IPv6 grouped by IPV6_SUBNET, IPv4-mapped IPv6 as IPv4", async () => {
    const t = adminApp();
    const prefix = uniqueIpv6Prefix();
    await t.get("/", `${prefix}::1`);
    const grouped = await (await t.admin(`status?client=${encodeURIComponent(`${prefix}:aaaa::2`)}`)).json();
    expect(grouped).toMatchObject({ client: `${prefix}::/64`, rules: [{ remaining: 4 }] });
    // The form the logs and `lists` print is taken back as it is.
    expect(await (await t.admin(`status?client=${encodeURIComponent(`${prefix}::/64`)}`)).json()).toEqual(grouped);
    const wider = await t.admin(`status?client=${encodeURIComponent(`${prefix}::/48`)}`);
    expect(wider.status).toBe(400);
    expect(((await wider.json()) as { detail: string }).detail).toBe(
      `Invalid client "${prefix}::/48": IPv6 clients are counted per /64 (IPV6_SUBNET); give an address, or its /64 as the logs print it.`,
    );
    const ip = uniqueIpv4();
    await t.get("/", ip);
    expect(await (await t.admin(`status?client=::ffff:${ip}`)).json()).toMatchObject({ client: ip, rules: [{ remaining: 4 }] });
  });

  it("Should find a header-keyed client by its raw key, hashed as the Worker hashes it", async () => {
    const t = adminApp({ ROUTES: [{ pattern: "*/v1/*", name: "api", rules: "10/1m", key: "header:x-api-key" }] });
    await t.get("/v1/items", uniqueIpv4(), { "x-api-key": "sk_live_42" });
    await t.get("/v1/items", uniqueIpv4(), { "x-api-key": "sk_live_42" });
    const body = await (await t.admin("status?key=sk_live_42&route=api")).json();
    expect(body).toMatchObject({ client: expect.stringMatching(/^key:[0-9a-f]{32}$/), route: "api", rules: [{ remaining: 8 }] });
  });

  it("Should answer 400 for a malformed client, 404 naming the routes for an unknown one, and 405 for a wrong method", async () => {
    const t = adminApp({ ROUTES: [{ pattern: "*/login", name: "login", rules: "5/1m" }] });
    const malformed = await t.admin("status?client=300.1.1.1");
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get("content-type")).toBe("application/problem+json");
    expect(await malformed.json()).toMatchObject({
      status: 400,
      detail: 'Invalid client "300.1.1.1": expected an IPv4 or IPv6 address, or an identifier as the logs print it (key:<32 hex digits>, …).',
    });
    const unknown = await t.admin("status?client=192.0.2.7&route=lgoin");
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { detail: string }).detail).toBe('Unknown route "lgoin" (routes: "default", "login").');
    const wrongMethod = await t.admin("reset?client=192.0.2.7", { method: "GET" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    expect((await t.admin("deny?client=192.0.2.7", { method: "PUT" })).headers.get("allow")).toBe("POST, DELETE");
    expect((await t.admin("stats")).status).toBe(404);
    // Names every object has are no endpoints either.
    expect((await t.admin("__proto__")).status).toBe(404);
    expect((await t.admin("constructor")).status).toBe(404);
  });

  it("Should answer HEAD wherever it answers GET, as RFC 9110 §9.3.2 asks, and list HEAD in Allow", async () => {
    const t = adminApp();
    const head = await t.admin("status?client=192.0.2.7", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("application/json");
    expect((await t.admin("status?client=192.0.2.7", { method: "POST" })).headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("the admin API: failures", () => {
  it("Should say that Redis refused the token, naming the variable, when Upstash answers 401, not that it could not be reached", async () => {
    const t = adminApp({ UPSTASH_REDIS_REST_TOKEN: "not-the-shims-token-0123456789" });
    for (const [path, method] of [
      ["status?client=192.0.2.8", "GET"],
      ["deny?client=192.0.2.8", "POST"],
    ]) {
      const answer = await t.admin(path!, { method });
      expect([answer.status, ((await answer.json()) as { detail: string }).detail], method).toEqual([
        503,
        "Redis refused the token (UPSTASH_REDIS_REST_TOKEN).",
      ]);
    }
  });

  it("Should answer 503 only when Redis fails, and 500 for any other error, so the operator looks in the right place", async () => {
    const failure: { error?: Error } = {};
    const t = adminApp(
      {},
      {
        createLimiter: (policy, deps) => {
          const limiter = createLimiter(policy, deps);
          return {
            ...limiter,
            rules: limiter.rules,
            status: (request) => (failure.error ? Promise.reject(failure.error) : limiter.status(request)),
          };
        },
      },
    );
    const ip = uniqueIpv4();
    failure.error = new RedisRestError("timeout", "evalsha", "no answer within 1000 ms");
    const down = await t.admin(`status?client=${ip}`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ detail: "Redis could not be reached." });
    failure.error = new TypeError("Cannot read properties of undefined (reading 'remaining')");
    const bug = await t.admin(`status?client=${ip}`);
    expect(bug.status).toBe(500);
    expect(await bug.json()).toMatchObject({ detail: "Unexpected error; see the Worker's logs." });
    expect(t.logs.map(({ event, cause }) => ({ event, cause }))).toEqual([
      { event: "redis-failure", cause: "Redis EVALSHA failed: no answer within 1000 ms" },
      { event: "internal-error", cause: "Cannot read properties of undefined (reading 'remaining')" },
    ]);
    failure.error = undefined;
    expect((await t.admin(`status?client=${ip}`)).status).toBe(200);
  });
});

describe("the admin API: failed-token guard", () => {
  it("Should log the guard's Redis failure while it still answers a wrong token 401, one line per kind every 10 s however many callers try", async () => {
    const t = adminApp({}, { redisFetch: () => Promise.reject(new TypeError("connect ECONNREFUSED 127.0.0.1:1")) });
    const statuses = [];
    for (let i = 0; i < 20; i++) statuses.push((await t.admin("config", { headers: { authorization: "Bearer not-the-token" }, ip: uniqueIpv4() })).status);
    expect(statuses).toEqual(Array(20).fill(401));
    expect(t.logs.filter(({ event }) => event === "redis-failure")).toEqual([expect.objectContaining({ kind: "network", route: "admin" })]);
    t.clock.now += 10_000;
    await t.admin("config", { headers: { authorization: "Bearer not-the-token" } });
    expect(t.logs.filter(({ event }) => event === "redis-failure")).toEqual([
      expect.objectContaining({ kind: "network", route: "admin" }),
      expect.objectContaining({ kind: "network", route: "admin", suppressed: 19 }),
    ]);
  });
});

describe("the admin API: failed-token guard during an outage", () => {
  it("Should keep a locked-out address locked out when Redis fails past the re-check, until its lockout ends", async () => {
    let down = false;
    const redisFetch = ((input: RequestInfo | URL, init?: RequestInit) =>
      down ? Promise.resolve(new Response('{"error":"ERR down"}', { status: 500 })) : fetch(input, init)) as typeof fetch;
    const t = adminApp({}, { redisFetch });
    const attacker = uniqueIpv4();
    for (let i = 0; i <= MAX_FAILED_ATTEMPTS; i++) await t.admin("config", { ip: attacker, headers: { authorization: `Bearer guess-${i}` } });
    const locked = await t.admin("config", { ip: attacker });
    expect(locked.status).toBe(429);
    const lockedFor = Number(locked.headers.get("retry-after"));
    t.clock.now += 15_000; // past the re-check
    down = true;
    const during = await t.admin("config", { ip: attacker });
    expect(during.status).toBe(429);
    expect(during.headers.get("retry-after")).toBe(String(lockedFor - 15));
    expect((await t.admin("config", { ip: uniqueIpv4() })).status).toBe(200);
    t.clock.now += lockedFor * 1000;
    expect((await t.admin("config", { ip: attacker })).status).toBe(200);
  });
});

describe("the admin API: reset", () => {
  it("Should delete a blocked client's counters, so that its next request goes through", async () => {
    const t = adminApp({ RATE_LIMIT: "2/1m" });
    const ip = uniqueIpv4();
    for (let i = 0; i < 3; i++) await t.get("/", ip);
    expect((await t.get("/", ip)).status).toBe(429);
    const reset = await t.admin(`reset?client=${ip}`, { method: "POST" });
    expect(await reset.json()).toEqual({ client: ip, route: "default", deleted: 1 });
    expect((await t.get("/", ip)).status).toBe(200);
  });

  it("Should reset every rule of the named route", async () => {
    const t = adminApp({
      ROUTES: [{ pattern: "*/login", name: "login", rules: ["1/1m", { limit: 3, window: "1h", algorithm: "sliding-log", name: "hourly" }] }],
    });
    const ip = uniqueIpv4();
    await t.get("/login", ip);
    expect((await t.get("/login", ip)).status).toBe(429);
    expect(await (await t.admin(`reset?client=${ip}&route=login`, { method: "POST" })).json()).toEqual({ client: ip, route: "login", deleted: 2 });
    expect(await (await t.admin(`status?client=${ip}&route=login`)).json()).toMatchObject({
      rules: [
        { name: "1-per-1m", remaining: 1 },
        { name: "hourly", remaining: 3 },
      ],
    });
  });
});

describe("the admin API: authentication", () => {
  it("Should answer 401 problem+json to a missing or wrong token, and change nothing", async () => {
    const t = adminApp({ RATE_LIMIT: "1/1m" });
    const ip = uniqueIpv4();
    await t.get("/", ip);
    for (const headers of [
      {} as Record<string, string>,
      { authorization: "Bearer wrong" },
      { authorization: `Basic ${ADMIN_TOKEN}` },
      { authorization: `Bearer ${ADMIN_TOKEN}x` },
    ]) {
      const refused = await t.admin(`reset?client=${ip}`, { method: "POST", headers, ip: uniqueIpv4() });
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="ratewall"');
      expect(await refused.json()).toMatchObject({ title: "Unauthorized", status: 401 });
    }
    expect((await t.get("/", ip)).status).toBe(429);
  });

  it("Should log each change with the caller's address and what it replaced, and no read or refused call", async () => {
    const t = adminApp();
    const [operator, client] = [uniqueIpv4(), uniqueIpv4()];
    await t.admin(`deny?client=${client}&ttl=600`, { method: "POST", ip: operator });
    await t.admin(`allow?client=${client}`, { method: "POST", ip: operator });
    await t.admin(`status?client=${client}`, { ip: operator });
    await t.admin(`reset?client=${client}`, { method: "POST", ip: operator, headers: { authorization: "Bearer wrong" } });
    expect(t.logs.filter((entry) => entry.event === "admin-change")).toEqual([
      expect.objectContaining({
        level: "info",
        route: "admin",
        by: operator,
        method: "POST",
        path: "/__ratewall/deny",
        answer: expect.objectContaining({ client, list: "deny", was: null }),
      }),
      expect.objectContaining({
        level: "info",
        route: "admin",
        by: operator,
        method: "POST",
        path: "/__ratewall/allow",
        answer: expect.objectContaining({ client, list: "allow", was: "deny" }),
      }),
    ]);
  });

  it("Should lock an address out after too many failed attempts, even when it then sends the right token", async () => {
    const t = adminApp();
    const attacker = uniqueIpv4();
    const statuses = [];
    for (let i = 0; i < MAX_FAILED_ATTEMPTS + 2; i++)
      statuses.push((await t.admin("config", { ip: attacker, headers: { authorization: `Bearer guess-${i}` } })).status);
    expect(statuses).toEqual([...Array(MAX_FAILED_ATTEMPTS).fill(401), 429, 429]);
    const right = await t.admin("config", { ip: attacker });
    expect(right.status).toBe(429);
    const lockedFor = Number(right.headers.get("retry-after"));
    expect(lockedFor).toBeGreaterThan(5);
    // Answered from memory until the next re-check, the wait still counts down.
    t.clock.now += 5_000;
    expect((await t.admin("config", { ip: attacker })).headers.get("retry-after")).toBe(String(lockedFor - 5));
    expect((await t.admin("config", { ip: uniqueIpv4() })).status).toBe(200);
    expect(t.logs.filter((entry) => entry.event === "admin-auth-failure")).toEqual([expect.objectContaining({ client: attacker })]);
  });

  it("Should lock out by address even where RATE_LIMIT counts a header, so that a new header value on each guess gains nothing", async () => {
    const t = adminApp({ RATE_LIMIT: { limit: 5, window: "1m", key: "header:x-api-key" } });
    const attacker = uniqueIpv4();
    const statuses = [];
    for (let i = 0; i < MAX_FAILED_ATTEMPTS + 1; i++) {
      const headers = { authorization: `Bearer guess-${i}`, "x-api-key": `key-${i}` };
      statuses.push((await t.admin("config", { ip: attacker, headers })).status);
    }
    expect(statuses).toEqual([...Array(MAX_FAILED_ATTEMPTS).fill(401), 429]);
    expect(t.logs.filter((entry) => entry.event === "admin-auth-failure")).toEqual([expect.objectContaining({ client: attacker })]);
  });

  it("Should keep answering an operator who denies their own address, so that the deny can be lifted", async () => {
    const t = adminApp();
    const operator = uniqueIpv4();
    expect((await t.admin(`deny?client=${operator}&ttl=600`, { method: "POST", ip: operator })).status).toBe(200);
    expect((await t.get("/", operator)).status).toBe(403);
    const lifted = await t.admin(`deny?client=${operator}`, { method: "DELETE", ip: operator });
    expect(lifted.status).toBe(200);
    expect(await lifted.json()).toEqual({ client: operator, list: "deny", deleted: true });
    expect((await t.get("/", operator)).status).toBe(200);
    expect(t.logs.filter((entry) => entry.event === "admin-auth-failure")).toEqual([]);
  });

  it("Should lock out an allowed address like any other: the allow list lifts rate limits, not the guard on the token", async () => {
    const t = adminApp();
    const allowed = uniqueIpv4();
    await t.admin(`allow?client=${allowed}`, { method: "POST" });
    const statuses = [];
    for (let i = 0; i < MAX_FAILED_ATTEMPTS + 1; i++)
      statuses.push((await t.admin("config", { ip: allowed, headers: { authorization: `Bearer guess-${i}` } })).status);
    expect(statuses).toEqual([...Array(MAX_FAILED_ATTEMPTS).fill(401), 429]);
  });
});

describe("the admin API: isolation from traffic", () => {
  it("Should never forward an admin path to the origin, nor count it against the client, on any host", async () => {
    const t = adminApp({ RATE_LIMIT: "2/1m" });
    const ip = uniqueIpv4();
    for (const url of [
      "https://example.com/__ratewall/config",
      "http://other.example/__ratewall/status?client=192.0.2.9",
      "https://example.com/__RATEWALL/%63onfig",
      "https://example.com/x/../__ratewall/nope",
      // Read with the encoded slash as a separator, this climbs out; read as one segment, as most
      // frameworks read it, it is an admin path: the API's, never forwarded with the token.
      "https://example.com/__ratewall/..%2Fconfig",
      "https://example.com/__ratewall/..%2F..%2Fstatus?client=192.0.2.9",
      "https://example.com/__ratewall;v=1/..%2Fconfig",
      "https://example.com/__ratewall;/..%2Fstatus?client=192.0.2.9",
    ]) {
      const res = await t.request(url, { ip, headers: bearer });
      expect(res.headers.get("content-type")).toMatch(/json/);
    }
    await t.request("/__ratewall/config", { ip });
    expect(t.origin.calls).toBe(0);
    expect(await (await t.admin(`status?client=${ip}`)).json()).toMatchObject({ rules: [{ remaining: 2 }] });
  });

  it("Should mark every admin answer, errors and HEAD included, and no other, so that ratewall-admin can tell them from the limiter's or an origin's", async () => {
    const t = adminApp({ RATE_LIMIT: "1/1m" });
    const answers = [
      await t.admin("config"),
      await t.admin("config", { method: "HEAD" }),
      await t.admin("nope"),
      await t.admin("config", { method: "DELETE" }),
      await t.admin("config", { headers: {} }),
    ];
    expect(answers.map((answer) => [answer.status, answer.headers.get("x-ratewall-admin")])).toEqual([
      [200, "1"],
      [200, "1"],
      [404, "1"],
      [405, "1"],
      [401, "1"],
    ]);
    const ip = uniqueIpv4();
    await t.get("/", ip);
    const refused = await t.get("/", ip, { accept: "application/json" });
    expect([refused.status, refused.headers.get("x-ratewall-admin")]).toEqual([429, null]);
  });

  it("Should keep /__ratewall without its slash, and an endpoint with a trailing one, from the origin, whose logs would get the token", async () => {
    const t = adminApp();
    const bare = await t.request("/__ratewall", { headers: bearer });
    expect(bare.status).toBe(404);
    expect(((await bare.json()) as { detail: string }).detail).toMatch(/^Unknown admin path "\/__ratewall" \(endpoints: \/__ratewall\/status, /);
    expect((await t.request("/__ratewall/config/", { headers: bearer })).status).toBe(200);
    expect((await t.request("/__ratewall", {})).status).toBe(401);
    expect(t.origin.calls).toBe(0);
    // A longer name that only starts like it is an ordinary path.
    expect((await t.request("/__ratewallet", { headers: bearer })).status).toBe(200);
    expect(t.origin.calls).toBe(1);
  });

  it("Should treat /__ratewall/ as an ordinary, counted path when ADMIN_TOKEN is unset", async () => {
    const t = testApp({ RATE_LIMIT: "1/1m" });
    const ip = uniqueIpv4();
    const res = await t.request("/__ratewall/status?client=192.0.2.1", { ip, headers: bearer });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-demo-origin")).toBe("1");
    expect((await t.get("/__ratewall/config", ip)).status).toBe(429);
  });
});

describe("the admin API: config", () => {
  it("Should show the effective settings with both tokens redacted", async () => {
    const t = adminApp({ ROUTES: [{ pattern: "*/login", rules: "5/1m" }] });
    const res = await t.admin("config");
    const text = await res.text();
    expect(text).not.toContain(ADMIN_TOKEN);
    const settings = JSON.parse(text) as { routes: unknown };
    expect(settings).toMatchObject({ redis: { token: "[redacted]" }, adminToken: "[redacted]", failureMode: "open", analytics: { client: "hashed" } });
    expect(settings.routes).toEqual([expect.objectContaining({ pattern: "*/login", rules: [expect.objectContaining({ limit: 5, windowMs: 60_000 })] })]);
  });

  it("Should show list entries and keys as the settings write them, an IPv6 range included", async () => {
    const t = adminApp({
      DENY: ["ip:2001:db8::/32", "ip:10.0.0.0/8", "country:RU", "asn:64496"],
      ROUTES: [
        {
          pattern: "*/api/*",
          key: "cookie:sid",
          allow: ["ip:192.0.2.1"],
          rules: [{ name: "per-key", limit: 5, window: "1m", key: ["ip", "header:x-api-key"] }],
        },
      ],
    });
    const res = await t.admin("config");
    expect(res.status).toBe(200);
    const settings = (await res.json()) as { deny: unknown; routes: unknown[]; defaultRoute: { key: unknown } };
    expect(settings.deny).toEqual(["ip:2001:db8::/32", "ip:10.0.0.0/8", "country:RU", "asn:64496"]);
    expect(settings.routes[0]).toMatchObject({ key: "cookie:sid", allow: ["ip:192.0.2.1"], rules: [{ name: "per-key", key: "[ip, header:x-api-key]" }] });
    expect(settings.defaultRoute.key).toBe("ip");
  });
});

describe("the block cache after a reset", () => {
  it("Should let another isolate keep refusing for at most BLOCK_RECHECK_MS", async () => {
    // Two apps on one prefix stand for two isolates: each has its own block cache.
    const first = adminApp({ RATE_LIMIT: "1/1h" });
    const ip = uniqueIpv4();
    const prefix = ((await (await first.admin("config")).json()) as { keyPrefix: string }).keyPrefix;
    const other = testApp({ RATE_LIMIT: "1/1h", KEY_PREFIX: prefix });
    other.clock.now = first.clock.now;
    await other.get("/", ip);
    expect((await other.get("/", ip)).status).toBe(429);
    await first.admin(`reset?client=${ip}`, { method: "POST" });
    expect((await other.get("/", ip)).status).toBe(429);
    other.clock.now += BLOCK_RECHECK_MS;
    expect((await other.get("/", ip)).status).toBe(200);
  });
});

describe("the admin API: dynamic lists", () => {
  it("Should deny a client in the same single round trip as a decision, with Retry-After, then from the block cache", async () => {
    const t = adminApp();
    const ip = uniqueIpv4();
    await t.get("/", ip);
    expect(await (await t.admin(`deny?client=${ip}&ttl=600`, { method: "POST" })).json()).toEqual({
      client: ip,
      list: "deny",
      ttlSeconds: 600,
      was: null,
      routes: ["default"],
      fallbackRoutes: [],
    });
    const calls = t.counter.redisCalls;
    const denied = await t.get("/", ip, { accept: "application/json" });
    expect(denied.status).toBe(403);
    expect(Number(denied.headers.get("retry-after"))).toBeGreaterThan(590);
    expect(await denied.json()).toMatchObject({ title: "Forbidden", status: 403 });
    expect(t.counter.redisCalls).toBe(calls + 1);
    expect((await t.get("/", ip)).status).toBe(403);
    expect(t.counter.redisCalls).toBe(calls + 1);
    expect(await (await t.admin(`status?client=${ip}`)).json()).toMatchObject({ list: "deny", listTtlMs: expect.any(Number), rules: [{ remaining: 4 }] });
    expect(t.logs.filter((entry) => entry.event === "denied")).toEqual([expect.objectContaining({ client: ip })]);
  });

  it("Should keep a client denied without a TTL in the block cache, logging one denied line, until a re-check", async () => {
    const t = adminApp();
    const ip = uniqueIpv4();
    expect((await t.admin(`deny?client=${ip}`, { method: "POST" })).status).toBe(200);
    const calls = t.counter.redisCalls;
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await t.get("/", ip)).status);
      t.clock.now += 1_500;
    }
    expect(statuses).toEqual(Array(6).fill(403));
    // One decision, then from memory until the 10 s re-check (at 10.5 s: one more call).
    expect(t.counter.redisCalls - calls).toBeLessThanOrEqual(2);
    for (let i = 0; i < 4; i++) {
      expect((await t.get("/", ip)).status).toBe(403);
      t.clock.now += 1_500;
    }
    expect(t.logs.filter((entry) => entry.event === "denied")).toEqual([expect.objectContaining({ client: ip, rule: "" })]);
  });

  it("Should forward an allowed client uncounted, and end both entries on DELETE", async () => {
    const t = adminApp({ RATE_LIMIT: "1/1m" });
    const ip = uniqueIpv4();
    await t.admin(`allow?client=${ip}`, { method: "POST" });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await t.get("/", ip)).status);
    expect(statuses).toEqual([200, 200, 200]);
    expect(await (await t.admin(`deny?client=${ip}`, { method: "DELETE" })).json()).toEqual({ client: ip, list: "deny", deleted: false });
    expect(await (await t.admin(`allow?client=${ip}`, { method: "DELETE" })).json()).toEqual({ client: ip, list: "allow", deleted: true });
    expect((await t.get("/", ip)).status).toBe(200);
    expect((await t.get("/", ip)).status).toBe(429);
  });

  it("Should answer a client it had refused for its rate 403 at once when an operator denies it, not 429 from memory", async () => {
    const t = adminApp({ RATE_LIMIT: "1/1m" });
    const ip = uniqueIpv4();
    expect((await t.get("/", ip)).status).toBe(200);
    expect((await t.get("/", ip)).status).toBe(429);
    expect((await t.admin(`deny?client=${ip}`, { method: "POST" })).status).toBe(200);
    expect((await t.get("/", ip)).status).toBe(403);
  });

  it("Should say which list a client was on when a deny replaces its allow, and which tier a new tier replaces", async () => {
    const t = adminApp({ TIERS: { free: "2/1m", pro: "5/1m" }, ROUTES: [{ pattern: "*/api/*", name: "api", tiers: "free" }] });
    const ip = uniqueIpv4();
    await t.admin(`allow?client=${ip}`, { method: "POST" });
    expect(await (await t.admin(`deny?client=${ip}&ttl=60`, { method: "POST" })).json()).toEqual({
      client: ip,
      list: "deny",
      ttlSeconds: 60,
      was: "allow",
      routes: ["default", "api"],
      fallbackRoutes: [],
    });
    expect((await t.get("/", ip)).status).toBe(403);
    await t.admin(`tier?client=${ip}&tier=pro`, { method: "POST" });
    expect(await (await t.admin(`tier?client=${ip}&tier=free`, { method: "POST" })).json()).toEqual({
      client: ip,
      tier: "free",
      was: "pro",
      routes: ["api"],
      fallbackRoutes: [],
    });
  });

  it("Should report a client's deny entry on an unlimited route, where the route forwards it without a Redis call", async () => {
    const t = adminApp({ ROUTES: [{ pattern: "*/health", name: "health", unlimited: true }] });
    const ip = uniqueIpv4();
    await t.admin(`deny?client=${ip}&ttl=600`, { method: "POST" });
    const calls = t.counter.redisCalls;
    expect((await t.get("/health", ip)).status).toBe(200);
    expect(t.counter.redisCalls).toBe(calls);
    expect((await t.get("/", ip)).status).toBe(403);
    const status = await (await t.admin(`status?client=${ip}&route=health`)).json();
    expect(status).toEqual({ client: ip, route: "health", staticList: null, list: "deny", listTtlMs: expect.any(Number), rules: [] });
    expect((status as { listTtlMs: number }).listTtlMs).toBeGreaterThan(590_000);
  });

  it("Should report a client's allow entry on the default route when RATE_LIMIT=unlimited, and no entry for a client without one", async () => {
    const t = adminApp({ RATE_LIMIT: "unlimited" });
    const ip = uniqueIpv4();
    await t.admin(`allow?client=${ip}`, { method: "POST" });
    expect(await (await t.admin(`status?client=${ip}`)).json()).toMatchObject({ list: "allow", listTtlMs: null, rules: [] });
    expect(await (await t.admin(`status?client=${uniqueIpv4()}`)).json()).toMatchObject({ list: null, listTtlMs: null, rules: [] });
  });

  it("Should refuse paging by offset past the first page with a 400 that points to the cursor, rather than answer the first page again", async () => {
    const t = adminApp();
    expect((await t.admin("lists?offset=0")).status).toBe(200);
    const res = await t.admin("lists?offset=500");
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toBe(
      'Invalid offset "500": pages follow `cursor`, the `next` of the previous page; only offset=0 is taken, for the first page.',
    );
  });

  it("Should list every entry that outlives the paging exactly once, when an entry listed on an earlier page expires in between", async () => {
    const t = adminApp();
    const lasting = Array.from({ length: 500 }, () => `${uniqueIpv6Prefix()}::/64`);
    for (let i = 0; i < lasting.length; i += 50) {
      await Promise.all(lasting.slice(i, i + 50).map((client) => t.admin(`deny?client=${client}`, { method: "POST" })));
    }
    const brief = uniqueIpv4();
    await t.admin(`deny?client=${brief}&ttl=2`, { method: "POST" });
    type Page = { entries: { client: string; ttlSeconds: number | null }[]; next: string | null };
    const first = (await (await t.admin("lists")).json()) as Page;
    expect(first.entries).toHaveLength(500);
    expect(first.entries[0]).toMatchObject({ client: brief, ttlSeconds: 2 });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const second = (await (await t.admin(`lists?cursor=${encodeURIComponent(first.next!)}`)).json()) as Page;
    const listed = [...first.entries, ...second.entries].map((entry) => entry.client).filter((client) => client !== brief);
    expect(listed.toSorted()).toEqual(lasting.toSorted());
    expect(second.next).toBeNull();
  }, 30_000);

  it("Should name the routes that meet a new entry, none for a kind of client no limited route counts yet, so that a deny that changes nothing is not taken for one", async () => {
    const t = adminApp({ ROUTES: [{ pattern: "*/app/*", name: "app", key: "cookie:sid", rules: "5/1m" }] });
    for (const query of ["client=asn:64496", "key=session-7"]) {
      expect(await (await t.admin(`deny?${query}`, { method: "POST" })).json(), query).toMatchObject({ list: "deny", routes: [] });
    }
    const address = uniqueIpv4();
    // A keyed route counts the address only for its requests without the key, which fall back to it.
    expect(await (await t.admin(`deny?client=${address}`, { method: "POST" })).json()).toMatchObject({ routes: ["default"], fallbackRoutes: ["app"] });
    expect((await t.get("/app/x", address, { cookie: "sid=session-8" })).status).toBe(200);
    expect((await t.get("/app/x", address)).status).toBe(403);
    // As the route counts it (status names the client), the session is denied there.
    const { client } = (await (await t.admin("status?route=app&key=session-7")).json()) as { client: string };
    expect(await (await t.admin(`deny?client=${client}`, { method: "POST" })).json()).toMatchObject({ client, routes: ["app"] });
    expect((await t.get("/app/x", uniqueIpv4(), { cookie: "sid=session-7" })).status).toBe(403);
  });

  it("Should name no route for a tier of a kind of client no route with tiers counts", async () => {
    const t = adminApp({ TIERS: { free: "2/1m", pro: "5/1m" }, ROUTES: [{ pattern: "*/api/*", name: "api", tiers: "free" }] });
    expect(await (await t.admin("tier?client=country:T1&tier=pro", { method: "POST" })).json()).toEqual({
      client: "country:T1",
      tier: "pro",
      was: null,
      routes: [],
      fallbackRoutes: [],
    });
    expect(await (await t.admin("tier?client=192.0.2.44&tier=pro", { method: "POST" })).json()).toMatchObject({ routes: ["api"], fallbackRoutes: [] });
  });

  it("Should answer 400 for a ttl that is not whole seconds from 1 s to 366 days, and store nothing", async () => {
    const t = adminApp();
    for (const ttl of ["1.5", "0", "31622401"]) {
      const res = await t.admin(`deny?client=192.0.2.8&ttl=${ttl}`, { method: "POST" });
      expect(res.status, ttl).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toBe(
        `Invalid ttl "${ttl}": expected whole seconds from 1 to 31622400, or no ttl for an entry until removed.`,
      );
    }
    expect((await t.get("/", "192.0.2.8")).status).toBe(200);
    expect((await t.admin("deny?client=192.0.2.8&ttl=31622400", { method: "POST" })).status).toBe(200);
  });
});

describe("the admin API: tiers", () => {
  const tiered = { TIERS: { free: "2/1m", pro: ["5/1m", "100/1s"] }, ROUTES: [{ pattern: "*/api/*", name: "api", tiers: "free" }] };

  it("Should move a client to another tier, effective on its next request, in one round trip per decision", async () => {
    const t = adminApp(tiered);
    const ip = uniqueIpv4();
    await t.get("/api/x", ip);
    await t.get("/api/x", ip);
    expect((await t.get("/api/x", ip)).status).toBe(429);
    expect(await (await t.admin(`tier?client=${ip}&tier=pro`, { method: "POST" })).json()).toEqual({
      client: ip,
      tier: "pro",
      was: null,
      routes: ["api"],
      fallbackRoutes: [],
    });
    const calls = t.counter.redisCalls;
    const upgraded = await t.get("/api/x", ip);
    expect(upgraded.status).toBe(200);
    expect(upgraded.headers.get("ratelimit-policy")).toBe('"5-per-1m";q=5;w=60, "100-per-1s";q=100;w=1');
    expect(t.counter.redisCalls).toBe(calls + 1);
    expect(await (await t.admin(`status?client=${ip}&route=api`)).json()).toMatchObject({
      tier: "pro",
      rules: [{ name: "5-per-1m", remaining: 4 }, { name: "100-per-1s" }],
    });
    expect(await (await t.admin(`tier?client=${ip}`, { method: "DELETE" })).json()).toEqual({ client: ip, deleted: true });
    expect((await t.get("/api/x", ip)).status).toBe(429);
  });

  it("Should answer 404 listing the tiers for an unknown one, and 400 listing them for none", async () => {
    const t = adminApp(tiered);
    const res = await t.admin("tier?client=192.0.2.9&tier=gold", { method: "POST" });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { detail: string }).detail).toBe('Unknown tier "gold" (tiers: "free", "pro").');
    const missing = await t.admin("tier?client=192.0.2.9", { method: "POST" });
    expect({ status: missing.status, ...((await missing.json()) as object) }).toMatchObject({ status: 400, detail: 'Missing tier (tiers: "free", "pro").' });
  });
});
