import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { RedisRestError } from "../../errors";
import type { Decision, Limiter, LimitRequest, Rule } from "../../limiter/types";
import type { LogEntry } from "./log";
import { rateLimit, type RateLimitOptions } from ".";

const now = 1_700_000_000_000;
const vars = { UPSTASH_REDIS_REST_URL: "https://redis.test", UPSTASH_REDIS_REST_TOKEN: "tok-secret-123", RATE_LIMIT: "2/10s" };
const runner = { evalsha: async () => 0, eval: async () => 0 };

/** A limiter that counts in memory: `limit` per window of its first rule, windows aligned to 0. */
function fakeLimiters() {
  const calls: LimitRequest[] = [];
  const counts = new Map<string, number>();
  const createLimiter = (rules: Rule[]): Limiter => ({
    rules,
    async limit(request) {
      calls.push(request);
      const rule = rules[0]!;
      const key = `${request.scope}|${request.client}`;
      const used = (counts.get(key) ?? 0) + (request.cost ?? 1);
      const allowed = used <= rule.limit;
      if (allowed) counts.set(key, used);
      const resetAt = Math.floor(request.now / rule.windowMs) * rule.windowMs + rule.windowMs;
      const decision: Decision = { allowed, rule: rule.name, rules: [{ rule: rule.name, limit: rule.limit, remaining: Math.max(0, rule.limit - (allowed ? used : used - 1)), resetAt, windowMs: rule.windowMs }] };
      return allowed ? decision : { ...decision, retryAfter: Math.ceil((resetAt - request.now) / 1000) };
    },
  });
  return { calls, createLimiter };
}

function makeApp(options: Partial<RateLimitOptions> = {}) {
  const logs: LogEntry[] = [];
  const fake = fakeLimiters();
  const app = new Hono();
  app.use(rateLimit({ vars, runner, createLimiter: fake.createLimiter, clock: () => now, log: (entry) => logs.push(entry), ...options }));
  app.all("*", (c) => c.text("origin"));
  const get = (path = "/", headers: Record<string, string> = {}) => app.request(`https://example.com${path}`, { headers: { "cf-connecting-ip": "203.0.113.7", ...headers } });
  return { app, get, logs, calls: fake.calls };
}

describe("rateLimit middleware", () => {
  it("Should let requests through with the draft headers until the limit, then answer 429 with Retry-After", async () => {
    const { get } = makeApp();
    const first = await get();
    expect(first.status).toBe(200);
    expect(await first.text()).toBe("origin");
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
    expect(await refused.json()).toEqual({ type: "about:blank", title: "Too Many Requests", status: 429, detail: 'Rate limit "default" exceeded; retry after 10 s.' });
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
    const failing = () => ({ rules: [], limit: async () => Promise.reject(new RedisRestError("timeout", "evalsha", "no answer within 50 ms (token tok-secret-123)")) });
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
    expect(calls.map(({ scope, cost }) => ({ scope, cost }))).toEqual([{ scope: "*/api/*", cost: 3 }, { scope: "", cost: 1 }]);
  });

  it("Should log one warning, not one per request, when clients share the unknown bucket", async () => {
    const { app, logs } = makeApp();
    await app.request("https://example.com/");
    await app.request("https://example.com/");
    expect(logs.filter((entry) => entry.event === "client-fallback")).toEqual([expect.objectContaining({ reason: "missing-ip", client: "unknown" })]);
  });

  it("Should validate its options when created", () => {
    expect(() => rateLimit({ vars: { ...vars, RATE_LIMIT: "ten/1s" } })).toThrow('RATE_LIMIT: invalid count "ten" (expected an integer from 1 to 1000000000)');
  });
});

describe("rateLimit middleware without vars", () => {
  it("Should read its settings from c.env, and answer a clear error when there is none", async () => {
    const fake = fakeLimiters();
    const app = new Hono();
    app.use(rateLimit({ runner, createLimiter: fake.createLimiter, clock: () => now }));
    app.get("/", (c) => c.text("ok"));
    app.onError((error, c) => c.text(error.message, 500));
    const headers = { "cf-connecting-ip": "203.0.113.7" };
    expect((await app.request("/", { headers }, { ...vars, RATE_LIMIT: "1/1m" })).headers.get("ratelimit-policy")).toBe('"default";q=1;w=60');
    const missing = await app.request("/", { headers });
    expect(await missing.text()).toBe("UPSTASH_REDIS_REST_URL: is required");
  });
});
