import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { testApp, uniqueIpv4 } from "./helpers.ts";

const TIMEOUT_MS = 100;
/** Loose: the answer must come soon after the timeout, not be a benchmark. */
const MARGIN_MS = 1_500;

/** The real shim, reached only after `delayMs` (an abort ends the wait, as a real socket would). */
function slowFetch(delayMs: number): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, delayMs);
      init?.signal?.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(init.signal?.reason ?? new Error("aborted"));
      });
    });
    return fetch(input, init);
  }) as typeof fetch;
}
const answer500 = (async () => new Response('{"error":"ERR internal"}', { status: 500 })) as unknown as typeof fetch;

const failures = [
  { name: "the shim is stopped (nothing listens)", vars: { UPSTASH_REDIS_REST_URL: "http://127.0.0.1:1" }, deps: {}, kind: "network" },
  { name: "the shim is slower than REDIS_TIMEOUT_MS", vars: {}, deps: { redisFetch: slowFetch(TIMEOUT_MS * 20) }, kind: "timeout" },
  { name: "the shim answers 500", vars: {}, deps: { redisFetch: answer500 }, kind: "http" },
];

describe.each(failures)("When $name", ({ vars, deps, kind }) => {
  it("Should forward to the origin with FAILURE_MODE=open, in time, and log the cause once without the token", async () => {
    const t = testApp({ ...vars, REDIS_TIMEOUT_MS: String(TIMEOUT_MS), FAILURE_MODE: "open" }, deps);
    const started = Date.now();
    const res = await t.get("/", uniqueIpv4());
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-demo-origin")).toBe("1");
    expect(res.headers.get("ratelimit")).toBeNull();
    expect(t.logs).toEqual([expect.objectContaining({ level: "error", event: "redis-failure", failureMode: "open", kind })]);
    expect(JSON.stringify(t.logs)).not.toContain(env.UPSTASH_REDIS_REST_TOKEN);
  });

  it("Should answer 503 with FAILURE_MODE=closed, in time, and log the cause once", async () => {
    const t = testApp({ ...vars, REDIS_TIMEOUT_MS: String(TIMEOUT_MS), FAILURE_MODE: "closed" }, deps);
    const started = Date.now();
    const res = await t.get("/", uniqueIpv4(), { accept: "application/problem+json" });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ type: "about:blank", title: "Service Unavailable", status: 503 });
    expect(t.logs).toEqual([expect.objectContaining({ event: "redis-failure", failureMode: "closed", kind })]);
  });
});

describe("When Redis fails while a client is blocked", () => {
  it("Should keep refusing the client from memory until its block ends, even with FAILURE_MODE=open, and log the failure", async () => {
    let down = false;
    const redisFetch = ((input: RequestInfo | URL, init?: RequestInit) => (down ? answer500(input, init) : fetch(input, init))) as typeof fetch;
    const t = testApp({ RATE_LIMIT: "1/1m", FAILURE_MODE: "open" }, { redisFetch });
    const ip = uniqueIpv4();
    expect((await t.get("/", ip)).status).toBe(200);
    expect((await t.get("/", ip)).status).toBe(429);
    t.clock.now += 15_000; // Past the block's re-check: this request asks Redis again.
    down = true;
    const refused = await t.get("/", ip);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(45);
    expect(t.logs).toContainEqual(expect.objectContaining({ event: "redis-failure", failureMode: "open", kind: "http" }));
    t.clock.now += 60_000; // The block has ended: Redis is still down, so the request fails open.
    expect((await t.get("/", ip)).status).toBe(200);
  });

  it("Should log an outage in one line per route and kind every 10 s, counting the failures it did not write, not one line per request", async () => {
    const down = (async () => new Response('{"error":"ERR down"}', { status: 500 })) as unknown as typeof fetch;
    const t = testApp({ FAILURE_MODE: "open", ROUTES: JSON.stringify([{ pattern: "*/login", rules: "5/1m" }]) }, { redisFetch: down });
    const failures = () => t.logs.filter((entry) => entry.event === "redis-failure");
    for (let i = 0; i < 100; i++) expect((await t.get("/", uniqueIpv4())).status).toBe(200);
    expect(failures()).toEqual([expect.objectContaining({ route: "default", kind: "http" })]);
    expect((await t.get("/login", uniqueIpv4())).status).toBe(200);
    expect(failures().map((entry) => entry.route)).toEqual(["default", "*/login"]);
    t.clock.now += 9_999;
    await t.get("/", uniqueIpv4());
    expect(failures()).toHaveLength(2);
    t.clock.now += 1;
    await t.get("/", uniqueIpv4());
    expect(failures()).toHaveLength(3);
    expect(failures()[2]).toMatchObject({ route: "default", kind: "http", suppressed: 100 });
    expect(failures()[0]).not.toHaveProperty("suppressed");
  });

  it("Should report the failures of a short outage that its one line did not count, once Redis answers again", async () => {
    let down = true;
    const redisFetch = ((input: RequestInfo | URL, init?: RequestInit) =>
      down ? Promise.resolve(new Response('{"error":"ERR down"}', { status: 500 })) : fetch(input, init)) as typeof fetch;
    const t = testApp({ FAILURE_MODE: "open" }, { redisFetch });
    for (let i = 0; i < 30; i++) await t.get("/", uniqueIpv4());
    down = false;
    t.clock.now += 5_000;
    await t.get("/", uniqueIpv4());
    expect(t.logs.filter((entry) => entry.event === "redis-recovered")).toEqual([]);
    t.clock.now += 5_000;
    await t.get("/", uniqueIpv4());
    await t.get("/", uniqueIpv4());
    expect(t.logs.filter((entry) => entry.event.startsWith("redis-"))).toEqual([
      expect.objectContaining({ event: "redis-failure", route: "default", kind: "http" }),
      { level: "warn", event: "redis-recovered", route: "default", suppressed: 29 },
    ]);
  });
});
