import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it } from "vitest";
import { BLOCK_RECHECK_MS } from "../../block-cache.ts";
import { RedisRestError } from "../../errors.ts";
import { createMemoryLimiter, ModelStore } from "../../limiter/index.ts";
import type { Policy } from "../../limiter/plan.ts";
import type { Limiter, LimitRequest } from "../../limiter/types.ts";
import type { LogEntry } from "./log.ts";
import { type DecisionEvent, rateLimit, type RateLimitOptions } from "./index.ts";

const now = 1_700_000_000_000;
const vars = { UPSTASH_REDIS_REST_URL: "https://redis.test", UPSTASH_REDIS_REST_TOKEN: "tok-secret-123", RATE_LIMIT: "2/10s" };
const runner = { evalsha: async () => 0, eval: async () => 0 };

/** The in-memory limiter (the scripts' own model), with every request it is asked recorded. */
function recordingLimiters() {
  const calls: LimitRequest[] = [];
  const store = new ModelStore();
  const createLimiter = (policy: Policy): Limiter => {
    const limiter = createMemoryLimiter(policy, { store });
    return {
      ...limiter,
      limit: (request) => {
        calls.push(request);
        return limiter.limit(request);
      },
    };
  };
  return { calls, createLimiter };
}

/** A limiter whose every Redis call fails with `error`. */
const failingWith = (error: Error) => (): Limiter => ({
  rules: [],
  limit: () => Promise.reject(error),
  status: () => Promise.reject(error),
  reset: () => Promise.reject(error),
});

function makeApp(options: Partial<RateLimitOptions> = {}, env?: object) {
  const logs: LogEntry[] = [];
  const events: DecisionEvent[] = [];
  const fake = recordingLimiters();
  const clock = { now };
  // No Variables declared, as in README's example: `c.var.rateLimit` is typed by the middleware.
  const app = new Hono();
  const onEvent = (event: DecisionEvent) => events.push(event);
  app.use(rateLimit({ vars, runner, createLimiter: fake.createLimiter, clock: () => clock.now, log: (entry) => logs.push(entry), onEvent, ...options }));
  app.all("*", (c) => c.json({ decision: c.var.rateLimit?.decision ?? null }));
  const get = (path = "/", headers: Record<string, string> = {}) =>
    app.request(`https://example.com${path}`, { headers: { "cf-connecting-ip": "203.0.113.7", ...headers } }, env);
  return { app, get, logs, events, clock, calls: fake.calls };
}

describe("rateLimit middleware", () => {
  it("Should let requests through with the draft headers until the limit, then answer 429 with Retry-After", async () => {
    const { get } = makeApp();
    const first = await get();
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ decision: { allowed: true } });
    expect(first.headers.get("ratelimit-policy")).toBe('"default";q=2;w=10');
    expect(first.headers.get("ratelimit")).toBe('"default";r=1;t=10');
    await get();
    const refused = await get();
    expect(refused.status).toBe(429);
    expect(await refused.text()).toBe("Too many requests");
    expect(refused.headers.get("retry-after")).toBe("10");
    expect(refused.headers.get("ratelimit")).toBe('"default";r=0;t=10');
  });

  it("Should answer a JSON client with RFC 9457 problem details", async () => {
    const { get } = makeApp({ vars: { ...vars, RATE_LIMIT: "1/10s" } });
    await get();
    const refused = await get("/", { accept: "application/json" });
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect(await refused.json()).toEqual({
      type: "about:blank",
      title: "Too Many Requests",
      status: 429,
      detail: 'Rate limit "default" exceeded; retry after 10 s.',
    });
  });

  it("Should refuse a blocked client from memory, without asking the limiter again", async () => {
    const { get, calls } = makeApp({ vars: { ...vars, RATE_LIMIT: "1/10s" } });
    await get();
    await get();
    expect(calls).toHaveLength(2);
    const again = await get();
    expect(again.status).toBe(429);
    expect(again.headers.get("retry-after")).toBe("10");
    expect(calls).toHaveLength(2);
  });

  it("Should never refuse in shadow mode, but send the headers and log the refusal", async () => {
    const { get, logs } = makeApp({ vars: { ...vars, RATE_LIMIT: "1/10s", MODE: "shadow" } });
    await get();
    const over = await get();
    expect(over.status).toBe(200);
    expect(over.headers.get("ratelimit")).toBe('"default";r=0;t=10');
    expect(logs).toContainEqual(expect.objectContaining({ event: "shadow-refusal", client: "203.0.113.7", rule: "default" }));
  });

  it("Should forward on a Redis failure when open, answer 503 when closed, and log the cause without the token", async () => {
    const failing = failingWith(new RedisRestError("timeout", "evalsha", "no answer within 50 ms (token tok-secret-123)"));
    const open = makeApp({ createLimiter: failing });
    const forwarded = await open.get();
    expect(forwarded.status).toBe(200);
    expect(forwarded.headers.get("ratelimit")).toBeNull();
    expect(open.logs).toEqual([expect.objectContaining({ event: "redis-failure", kind: "timeout", failureMode: "open" })]);
    expect(JSON.stringify(open.logs)).not.toContain("tok-secret-123");

    const closed = makeApp({ createLimiter: failing, vars: { ...vars, FAILURE_MODE: "closed" } });
    const refused = await closed.get();
    expect(refused.status).toBe(503);
    expect(await refused.text()).toBe("Service Unavailable: The rate limiter is unavailable; try again shortly.");
  });

  it("Should use the most specific route's rules, scope and cost, and skip unlimited routes", async () => {
    const routes = [
      { pattern: "*/api/*", rules: "100/1m", cost: 3 },
      { pattern: "*/api/health", unlimited: true },
    ];
    const { get, calls } = makeApp({ vars: { ...vars, ROUTES: routes } });
    expect((await get("/api/health")).headers.get("ratelimit")).toBeNull();
    await get("/api/users");
    await get("/other");
    expect(calls.map(({ scope, cost }) => ({ scope, cost }))).toEqual([
      { scope: "*/api/*", cost: 3 },
      { scope: "", cost: 1 },
    ]);
  });

  it("Should log one warning, not one per request, when clients share the unknown bucket", async () => {
    const { app, logs } = makeApp();
    await app.request("https://example.com/");
    await app.request("https://example.com/");
    expect(logs.filter((entry) => entry.event === "client-fallback")).toEqual([expect.objectContaining({ reason: "missing-ip", client: "unknown" })]);
  });

  it("Should validate its options when created", () => {
    expect(() => rateLimit({ vars: { ...vars, RATE_LIMIT: "ten/1s" } })).toThrow('RATE_LIMIT: invalid count "ten" (expected an integer from 1 to 1000000000)');
    // Without vars nothing else is built before the first request: the option still fails now.
    expect(() => rateLimit({ blockCacheSize: -1 })).toThrow("blockCacheSize: expected an integer >= 1, got -1");
  });

  it("Should refuse an unknown option or an option of the wrong type when created, not on each request", () => {
    // What a JavaScript caller (or a cast) can pass; each would otherwise be a 500 per request, a
    // silent fail-open on every decision, or every client in the shared unknown bucket.
    const create = (options: unknown) => () => rateLimit(options as RateLimitOptions);
    expect(create({ vars, clientAdress: () => "192.0.2.1" })).toThrow('rateLimit: unknown option "clientAdress"');
    expect(create({ vars, clock: 5 })).toThrow("clock: expected a function, got 5");
    expect(create({ vars, log: "console" })).toThrow('log: expected a function, got "console"');
    expect(create({ vars, fetch: "x" })).toThrow('fetch: expected a function, got "x"');
    expect(create({ vars, onEvent: {} })).toThrow("onEvent: expected a function, got {}");
    expect(create({ vars, createLimiter: "x" })).toThrow('createLimiter: expected a function, got "x"');
    expect(create({ vars, runner: {} })).toThrow("runner: expected an object with evalsha and eval methods, got {}");
    expect(create({ vars: null })).toThrow("vars: expected an object of variables, got null");
    expect(create({ vars: "RATE_LIMIT=5/1m" })).toThrow('vars: expected an object of variables, got "RATE_LIMIT=5/1m"');
    expect(create(null)).toThrow("rateLimit: expected an options object, got null");
    expect(create({ vars, clock: () => 0, log: () => {}, onEvent: () => {}, fetch: undefined })).not.toThrow();
  });

  it("Should refuse when created a block cache of no entries, a runner without eval and vars that are a list, not on the first request", () => {
    expect(() => rateLimit({ blockCacheSize: 0 })).toThrow("blockCacheSize: expected an integer >= 1, got 0");
    expect(() => rateLimit({ vars, runner: { evalsha: async () => 0 } } as unknown as RateLimitOptions)).toThrow(
      "runner: expected an object with evalsha and eval methods",
    );
    expect(() => rateLimit({ vars: [] as never })).toThrow("vars: expected an object of variables, got []");
  });

  it("Should refuse a createLimiter that makes no limiter when created, and pass on its own error as its own, not as a fault of RATE_LIMIT", () => {
    const cases: Array<[made: unknown, got: string]> = [
      [{}, "{}"],
      [Promise.resolve({}), "a Promise"],
      // Its rejection is not left unhandled: the run would report it (and Node end the process).
      [Promise.reject(new Error("no Redis for tenant 7")), "a Promise"],
      [undefined, "undefined"],
    ];
    for (const [made, got] of cases) {
      expect(() => rateLimit({ vars, runner, createLimiter: () => made as never }), got).toThrow(
        new TypeError(`createLimiter(): expected an object with limit and status and reset methods, got ${got}`),
      );
    }
    for (const own of [new Error("no Redis configured for tenant 7"), new RangeError("tenant 7: pool size must be >= 1")]) {
      expect(() =>
        rateLimit({
          vars,
          runner,
          createLimiter: () => {
            throw own;
          },
        }),
      ).toThrow(own);
    }
  });

  it("Should refuse a variable of 6 letters or more one edit away, as ROUTE for ROUTES", () => {
    expect(() => rateLimit({ vars: { ...vars, ROUTE: '[{"pattern": "*/login", "rules": "5/1m"}]' } as never })).toThrow(
      'vars: unknown variable "ROUTE" (did you mean ROUTES?)',
    );
  });

  it("Should refuse a misspelled variable in its vars instead of running on the default it stands for", () => {
    // Typed callers get TypeScript's excess-property error; these are what a JavaScript caller sees.
    const misspelt = (extra: Record<string, unknown>) => () => rateLimit({ vars: { ...vars, ...extra } as never });
    expect(misspelt({ RATE_LIMT: "5/1m" })).toThrow('vars: unknown variable "RATE_LIMT" (did you mean RATE_LIMIT?)');
    expect(misspelt({ rate_limit_algorithm: "token-bucket" })).toThrow('vars: unknown variable "rate_limit_algorithm" (did you mean RATE_LIMIT_ALGORITHM?)');
    expect(misspelt({ FAILURE_MOD: "closed" })).toThrow("(did you mean FAILURE_MODE?)");
    // The unit left off (or added): the name an operator types from memory.
    expect(misspelt({ REDIS_TIMEOUT: "100" })).toThrow('vars: unknown variable "REDIS_TIMEOUT" (did you mean REDIS_TIMEOUT_MS?)');
    expect(misspelt({ origin_timeout: "100" })).toThrow("(did you mean ORIGIN_TIMEOUT_MS?)");
    // An app's whole environment (names like none of ratewall's, or bindings) is not its business.
    expect(misspelt({ HOME: "/root", NODE: "20", NODE_ENV: "production", PATH: "/usr/bin", RATE_LIMITER: {} })).not.toThrow();
    expect(misspelt({ ADMIN_TOKENS: "a,b", APP_NAME: "shop" })).not.toThrow();
    expect(misspelt({ ROUTER: new (class Fetcher {})() })).not.toThrow();
  });
});

describe("rateLimit middleware: decision events and logs", () => {
  /** Lets the hashing of a client the isolate has not seen yet finish. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

  it("Should yield one event per request, saying how it was decided and how close the client is to its limit", async () => {
    const { get, events } = makeApp({ vars: { ...vars, RATE_LIMIT: "5/10s" } });
    for (let i = 0; i < 7; i++) await get();
    await settle();
    expect(events.map((event) => [event.outcome, event.remaining, event.nearLimit])).toEqual([
      ["allowed", 4, false],
      ["allowed", 3, false],
      ["allowed", 2, false],
      ["allowed", 1, true],
      ["allowed", 0, true],
      ["refused", 0, true],
      ["block-cache", 0, true],
    ]);
    expect(events[0]).toMatchObject({ route: "default", rule: "default", algorithm: "fixed-window", limit: 5 });
    expect(events[5]!.redisMs).toBeGreaterThanOrEqual(0);
    expect(events[6]!.redisMs).toBe(0);
  });

  it("Should count an event's limit and remaining in requests of the route's cost, as the RateLimit header does", async () => {
    const { get, events } = makeApp({ vars: { ...vars, RATE_LIMIT: "5/1m", ROUTES: [{ pattern: "*/costly", rules: "5/1m", cost: 2 }] } });
    const remainingInHeaders: Array<string | undefined> = [];
    for (let i = 0; i < 3; i++) remainingInHeaders.push((await get("/costly")).headers.get("ratelimit")?.match(/;r=(\d+)/)?.[1]);
    await settle();
    expect(remainingInHeaders).toEqual(["1", "0", "0"]);
    expect(events.map((event) => [event.outcome, event.limit, event.remaining])).toEqual([
      ["allowed", 2, 1],
      ["allowed", 2, 0],
      ["refused", 2, 0],
    ]);
  });

  it("Should carry the client hashed by default, the same hash for the same client, and never the address", async () => {
    const { get, events } = makeApp();
    await get();
    await get("/", { "cf-connecting-ip": "198.51.100.1" });
    await get();
    await settle();
    const clients = events.map((event) => event.client);
    expect(clients[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(clients[2]).toBe(clients[0]);
    expect(clients[1]).not.toBe(clients[0]);
    expect(JSON.stringify(events)).not.toContain("203.0.113.7");
  });

  it("Should carry the client plainly, or not at all, as ANALYTICS_CLIENT says", async () => {
    const plain = makeApp({ vars: { ...vars, ANALYTICS_CLIENT: "plain" } });
    await plain.get();
    expect(plain.events[0]!.client).toBe("203.0.113.7");
    const none = makeApp({ vars: { ...vars, ANALYTICS_CLIENT: "none" } });
    await none.get();
    await settle();
    expect(none.events[0]).not.toHaveProperty("client");
  });

  it("Should name the client of a request the static lists decide, as the limiter counts it", async () => {
    const lists = { ANALYTICS_CLIENT: "plain", DENY: JSON.stringify(["ip:203.0.113.0/24"]), ALLOW: JSON.stringify(["ip:2001:db8::/32"]) };
    const { get, events } = makeApp({ vars: { ...vars, ...lists } });
    expect((await get()).status).toBe(403);
    expect((await get("/", { "cf-connecting-ip": "2001:db8:1:2::9" })).status).toBe(200);
    expect(events.map(({ outcome, client }) => ({ outcome, client }))).toEqual([
      { outcome: "denied", client: "203.0.113.7" },
      { outcome: "allow-listed", client: "2001:db8:1:2::/64" },
    ]);
  });

  it("Should add Cloudflare's country and colo when the request has them", async () => {
    const { app, events } = makeApp({ vars: { ...vars, ANALYTICS_CLIENT: "none" } });
    const request = new Request("https://example.com/", { headers: { "cf-connecting-ip": "203.0.113.7" } });
    Object.defineProperty(request, "cf", { value: { country: "DE", colo: "FRA" } });
    await app.request(request);
    expect(events[0]).toMatchObject({ country: "DE", colo: "FRA" });
  });

  it("Should read request.cf only when a list naming a country or ASN, a key or an event needs it, and then once", async () => {
    const counted = () => {
      const request = new Request("https://example.com/", { headers: { "cf-connecting-ip": "203.0.113.7" } });
      const reads = { count: 0 };
      Object.defineProperty(request, "cf", {
        get: () => {
          reads.count++;
          return { country: "DE", asn: 64496, colo: "FRA" };
        },
      });
      return { request, reads };
    };
    const quiet = (extra: object) => {
      const app = new Hono();
      app.use(rateLimit({ vars: { ...vars, ...extra }, runner, createLimiter: recordingLimiters().createLimiter, clock: () => now, log: () => {} }));
      return app.all("*", (c) => c.text("ok"));
    };
    const plain = counted();
    expect((await quiet({}).request(plain.request)).status).toBe(200);
    expect(plain.reads.count).toBe(0);
    const addressListed = counted();
    expect((await quiet({ DENY: JSON.stringify(["ip:198.51.100.0/24"]) }).request(addressListed.request)).status).toBe(200);
    expect(addressListed.reads.count).toBe(0);
    const listed = counted();
    expect((await quiet({ DENY: JSON.stringify(["country:FR"]) }).request(listed.request)).status).toBe(200);
    expect(listed.reads.count).toBe(1);
    const { app, events } = makeApp({ vars: { ...vars, ANALYTICS_CLIENT: "none" } });
    const observed = counted();
    await app.request(observed.request);
    expect(events[0]).toMatchObject({ country: "DE", colo: "FRA" });
    expect(observed.reads.count).toBe(1);
    const both = makeApp({ vars: { ...vars, ANALYTICS_CLIENT: "none", DENY: JSON.stringify(["asn:64511"]) } });
    const listedAndObserved = counted();
    expect((await both.app.request(listedAndObserved.request)).status).toBe(200);
    expect(both.events[0]).toMatchObject({ country: "DE", colo: "FRA" });
    expect(listedAndObserved.reads.count).toBe(1);
  });

  it("Should write every event to the RATEWALL_ANALYTICS dataset, and keep serving when the dataset throws", async () => {
    const points: unknown[] = [];
    const recording = { writeDataPoint: (point: unknown) => points.push(point) };
    const { get } = makeApp({ vars: { ...vars, RATE_LIMIT: "1/10s", ANALYTICS_CLIENT: "none" } }, { RATEWALL_ANALYTICS: recording });
    await get();
    await get();
    expect(points).toEqual([
      { indexes: ["default"], blobs: ["allowed", "default", "default", "fixed-window", "", "", ""], doubles: [1, 0, 1, expect.any(Number)] },
      { indexes: ["default"], blobs: ["refused", "default", "default", "fixed-window", "", "", ""], doubles: [1, 0, 1, expect.any(Number)] },
    ]);
    const broken = {
      writeDataPoint: () => {
        throw new Error("dataset unavailable");
      },
    };
    const failing = makeApp({}, { RATEWALL_ANALYTICS: broken });
    expect((await failing.get()).status).toBe(200);
    expect((await failing.get()).status).toBe(200);
    await settle();
    expect(failing.logs.filter((entry) => entry.event === "analytics-failure")).toEqual([expect.objectContaining({ cause: "dataset unavailable" })]);
  });

  it("Should log a refused client once when it is blocked, not once per refused request", async () => {
    const { get, logs } = makeApp({ vars: { ...vars, RATE_LIMIT: "2/10s" } });
    const statuses = [];
    for (let i = 0; i < 1_000; i++) statuses.push((await get()).status);
    expect(statuses.filter((status) => status === 429)).toHaveLength(998);
    expect(logs.filter((entry) => entry.event === "refusal")).toEqual([
      expect.objectContaining({ client: "203.0.113.7", route: "default", rule: "default", retryAfter: 10 }),
    ]);
  });

  it("Should ask Redis again after BLOCK_RECHECK_MS, and log nothing new while the block goes on", async () => {
    const { get, logs, calls, clock } = makeApp({ vars: { ...vars, RATE_LIMIT: "1/60s" } });
    await get();
    const announced = Number((await get()).headers.get("retry-after"));
    expect(calls).toHaveLength(2);
    clock.now += BLOCK_RECHECK_MS - 1;
    expect((await get()).status).toBe(429);
    expect(calls).toHaveLength(2);
    clock.now += 1;
    const again = await get();
    expect(again.status).toBe(429);
    expect(Number(again.headers.get("retry-after"))).toBe(announced - BLOCK_RECHECK_MS / 1000);
    expect(calls).toHaveLength(3);
    expect(logs.filter((entry) => entry.event === "refusal")).toHaveLength(1);
  });

  it("Should tell later handlers that Redis failed open, and whether it timed out or failed", async () => {
    const timedOut = makeApp({ createLimiter: failingWith(new RedisRestError("timeout", "evalsha", "no answer within 500 ms")) });
    expect(await (await timedOut.get()).json()).toEqual({ decision: { allowed: true, rule: "", rules: [], reason: "redis-timeout" } });
    expect(timedOut.events[0]).toMatchObject({ outcome: "failed-open", rule: "", limit: 0 });
    const failed = makeApp({ createLimiter: failingWith(new RedisRestError("http", "evalsha", "Bad Gateway", 502)) });
    expect(await (await failed.get()).json()).toEqual({ decision: { allowed: true, rule: "", rules: [], reason: "redis-error" } });
    const closed = makeApp({ createLimiter: failingWith(new RedisRestError("network", "evalsha", "refused")), vars: { ...vars, FAILURE_MODE: "closed" } });
    expect((await closed.get()).status).toBe(503);
    expect(closed.events.map((event) => event.outcome)).toEqual(["failed-closed"]);
  });

  it("Should yield an unlimited event for a route that counts nothing, without identifying the client", async () => {
    const { get, events } = makeApp({ vars: { ...vars, ROUTES: [{ pattern: "*/health", unlimited: true }] } });
    await get("/health");
    expect(events).toEqual([expect.objectContaining({ outcome: "unlimited", route: "*/health", rule: "", nearLimit: false })]);
    expect(events[0]).not.toHaveProperty("client");
  });
});

describe("rateLimit middleware with the app's own clientAddress", () => {
  // As on Node, where the socket's peer is the address and any CF-Connecting-IP is the client's own.
  const peer = (c: { req: { header(name: string): string | undefined } }) => c.req.header("x-test-peer");

  it("Should count each client by the address clientAddress gives, whatever CF-Connecting-IP it writes", async () => {
    const { get, calls } = makeApp({ vars: { ...vars, RATE_LIMIT: "1/10s" }, clientAddress: peer });
    const first = await get("/", { "x-test-peer": "198.51.100.1", "cf-connecting-ip": "203.0.113.1" });
    const spoofed = await get("/", { "x-test-peer": "198.51.100.1", "cf-connecting-ip": "203.0.113.2" });
    const other = await get("/", { "x-test-peer": "198.51.100.2", "cf-connecting-ip": "203.0.113.1" });
    expect([first.status, spoofed.status, other.status]).toEqual([200, 429, 200]);
    expect(calls.map((call) => call.client)).toEqual(["198.51.100.1", "198.51.100.1", "198.51.100.2"]);
  });

  it("Should match the deny list against that address, and count a request without one as unknown, with a warning", async () => {
    const { get, logs, calls } = makeApp({ vars: { ...vars, DENY: '["ip:198.51.100.9"]' }, clientAddress: peer });
    expect((await get("/", { "x-test-peer": "198.51.100.9", "cf-connecting-ip": "203.0.113.1" })).status).toBe(403);
    expect((await get("/", { "cf-connecting-ip": "203.0.113.1" })).status).toBe(200);
    expect(calls.map((call) => call.client)).toEqual(["unknown"]);
    expect(logs).toContainEqual(expect.objectContaining({ event: "client-fallback", reason: "missing-ip" }));
  });

  it("Should read an address given with its port as the address, as an X-Forwarded-For hop is read", async () => {
    const { get, calls } = makeApp({ clientAddress: peer });
    await get("/", { "x-test-peer": "198.51.100.1:51234" });
    await get("/", { "x-test-peer": "[2001:db8::1]:443" });
    expect(calls.map((call) => call.client)).toEqual(["198.51.100.1", "2001:db8::/64"]);
  });

  it("Should count a request whose clientAddress throws as unknown, logging the error once, and not ask it on a route that counts nothing", async () => {
    let asked = 0;
    const throwing = () => {
      asked++;
      throw new TypeError("no socket here");
    };
    const { get, logs, calls } = makeApp({ clientAddress: throwing });
    expect([(await get()).status, (await get()).status]).toEqual([200, 200]);
    expect(calls.map((call) => call.client)).toEqual(["unknown", "unknown"]);
    expect(logs.filter((entry) => entry.event === "client-address-failed")).toEqual([
      { level: "error", event: "client-address-failed", route: "default", error: "TypeError: no socket here" },
    ]);
    const unlimited = makeApp({ vars: { ...vars, RATE_LIMIT: "unlimited" }, clientAddress: throwing });
    asked = 0;
    expect((await unlimited.get()).status).toBe(200);
    expect(asked).toBe(0);
  });

  it("Should not ask clientAddress on a route that counts an API key the request carries, and ask it when the key is missing", async () => {
    let asked = 0;
    const counting = () => {
      asked++;
      return "198.51.100.1";
    };
    const routes = JSON.stringify([{ pattern: "*/api/*", rules: "5/1m", key: "header:x-api-key" }]);
    const { get, calls } = makeApp({ vars: { ...vars, ROUTES: routes }, clientAddress: counting });
    await get("/api/a", { "x-api-key": "sk_1" });
    expect(asked).toBe(0);
    await get("/api/a");
    expect([asked, calls.at(-1)?.client]).toEqual([1, "198.51.100.1"]);
  });

  it("Should refuse a clientAddress that is not a function, naming the option", () => {
    expect(() => rateLimit({ vars, clientAddress: "x-real-ip" as never })).toThrow(
      'clientAddress: expected a function (c) => string | undefined, got "x-real-ip"',
    );
  });
});

describe("rateLimit middlewares nested on one path", () => {
  function nestedApp(headers: string) {
    const { createLimiter } = recordingLimiters();
    const app = new Hono();
    const common = { runner, createLimiter, clock: () => now, log: () => {} };
    app.use(rateLimit({ ...common, vars: { ...vars, RATE_LIMIT: "10/60s", RATE_LIMIT_HEADERS: headers, KEY_PREFIX: "site" } }));
    app.use("/login", rateLimit({ ...common, vars: { ...vars, RATE_LIMIT: "1/10s", RATE_LIMIT_HEADERS: headers, KEY_PREFIX: "login" } }));
    app.all("*", (c) => c.text("ok"));
    return () => app.request("https://example.com/login", { headers: { "cf-connecting-ip": "203.0.113.7" } });
  }

  it("Should list both limits in RateLimit, and keep the inner limit's refusal in a 429 that passes the outer one", async () => {
    const get = nestedApp("draft");
    const allowed = await get();
    expect(allowed.headers.get("ratelimit-policy")).toBe('"default";q=1;w=10, "default";q=10;w=60');
    expect(allowed.headers.get("ratelimit")).toBe('"default";r=0;t=10, "default";r=9;t=40');
    const refused = await get();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("10");
    expect(refused.headers.get("ratelimit")).toBe('"default";r=0;t=10, "default";r=8;t=40');
  });

  it("Should give the legacy headers of the limit with the least left, whichever middleware decided it", async () => {
    const get = nestedApp("legacy");
    const allowed = await get();
    expect([allowed.headers.get("x-ratelimit-limit"), allowed.headers.get("x-ratelimit-remaining")]).toEqual(["1", "0"]);
    const refused = await get();
    expect(refused.status).toBe(429);
    expect([refused.headers.get("x-ratelimit-limit"), refused.headers.get("x-ratelimit-remaining")]).toEqual(["1", "0"]);
  });
});

describe("rateLimit middleware without vars", () => {
  it("Should read its settings from c.env, and answer a clear error when there is none", async () => {
    const fake = recordingLimiters();
    const app = new Hono();
    app.use(rateLimit({ runner, createLimiter: fake.createLimiter, clock: () => now }));
    app.get("/", (c) => c.text("ok"));
    app.onError((error, c) => c.text(error.message, 500));
    const headers = { "cf-connecting-ip": "203.0.113.7" };
    expect((await app.request("/", { headers }, { ...vars, RATE_LIMIT: "1/1m" })).headers.get("ratelimit-policy")).toBe('"default";q=1;w=60');
    const missing = await app.request("/", { headers });
    expect(await missing.text()).toBe("UPSTASH_REDIS_REST_URL: is required (on a Worker, in wrangler.toml's [vars]; on Node, in `rateLimit({ vars })`)");
  });

  it("Should log an onEvent whose promise rejects once, as one that throws, and never leave the rejection unhandled (a Node server exits on one)", async () => {
    const { get, logs } = makeApp({
      onEvent: async () => {
        throw new Error("analytics endpoint down");
      },
    });
    expect([(await get()).status, (await get()).status]).toEqual([200, 200]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(logs.filter((entry) => entry.event === "analytics-failure")).toEqual([expect.objectContaining({ cause: "analytics endpoint down" })]);
  });

  it("Should answer 500 naming the clock when it returns no time, instead of reading that as a Redis failure and letting every request through", async () => {
    const { app, get, calls } = makeApp({ clock: () => Number.NaN, vars: { ...vars, RATE_LIMIT: "1/10s" } });
    app.onError((error, c) => c.text(error.message, 500));
    const answers = [await get(), await get()];
    expect(await Promise.all(answers.map(async (answer) => [answer.status, await answer.text()]))).toEqual([
      [500, "clock: returned NaN, expected ms since the epoch"],
      [500, "clock: returned NaN, expected ms since the epoch"],
    ]);
    expect(calls).toEqual([]);
    // null would read as the epoch, silently.
    const epoch = makeApp({ clock: () => null as unknown as number });
    epoch.app.onError((error, c) => c.text(error.message, 500));
    expect(await (await epoch.get()).text()).toBe("clock: returned null, expected ms since the epoch");
  });

  it("Should keep answering when its log function throws: a refusal stays a 429", async () => {
    const { get } = makeApp({
      vars: { ...vars, RATE_LIMIT: "1/10s" },
      log: () => {
        throw new Error("log sink down");
      },
    });
    expect([(await get()).status, (await get()).status, (await get()).status]).toEqual([200, 429, 429]);
  });
});

describe("rateLimit middleware in an app with its own onError", () => {
  it("Should throw a refusal as an HTTPException carrying its finished 429, as the README tells onError to expect", async () => {
    const { app, get } = makeApp({ vars: { ...vars, RATE_LIMIT: "1/10s" } });
    const seen: unknown[] = [];
    app.onError((error, c) => {
      seen.push(error);
      return error instanceof HTTPException ? error.getResponse() : c.text("unexpected", 500);
    });
    await get();
    const refused = await get();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("10");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(HTTPException);
    expect((seen[0] as HTTPException).status).toBe(429);
  });
});
