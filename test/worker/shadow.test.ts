import { describe, expect, it } from "vitest";
import { switchableRedis, testApp, uniqueIpv4 } from "./helpers.ts";
import { BLOCK_RECHECK_MS } from "../../src/block-cache.ts";

const ADMIN_TOKEN = "adm1n-t0ken-for-the-shadow-deny-test-0123456789";

describe("shadow mode, end to end", () => {
  it("Should decide, count, log and send headers with MODE=shadow, but never refuse", async () => {
    const t = testApp({ RATE_LIMIT: "2/1m", MODE: "shadow" });
    const ip = uniqueIpv4();
    const answers = [await t.get("/", ip)];
    // The first call may also load the script (EVALSHA, NOSCRIPT, EVAL); count from the second.
    const callsAfterFirst = t.counter.redisCalls;
    for (let i = 0; i < 3; i++) answers.push(await t.get("/", ip));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200]);
    expect(answers[3]!.headers.get("ratelimit")).toMatch(/^"default";r=0;t=\d+$/);
    expect(answers[3]!.headers.get("retry-after")).toBeNull();
    // Logged once when the client would have been blocked, not once per request it would refuse.
    expect(t.logs.filter((entry) => entry.event === "shadow-refusal")).toHaveLength(1);
    // Shadow refusals are never served from memory: every request is still decided by Redis.
    expect(t.counter.redisCalls).toBe(callsAfterFirst + 3);
  });

  it("Should shadow only the route that says so", async () => {
    const t = testApp({ RATE_LIMIT: "1/1m", ROUTES: [{ pattern: "*/beta/*", rules: "1/1m", mode: "shadow" }] });
    const ip = uniqueIpv4();
    await t.get("/beta/x", ip);
    expect((await t.get("/beta/x", ip)).status).toBe(200);
    await t.get("/other", ip);
    expect((await t.get("/other", ip)).status).toBe(429);
  });

  it("Should refuse a client a static DENY entry names on a route in shadow, without asking Redis", async () => {
    const ip = uniqueIpv4();
    const t = testApp({ RATE_LIMIT: "100/1m", MODE: "shadow", DENY: JSON.stringify([`ip:${ip}`]) });
    const calls = t.counter.redisCalls;
    expect((await t.get("/x", ip)).status).toBe(403);
    expect(t.counter.redisCalls).toBe(calls);
    expect((await t.get("/x", uniqueIpv4())).status).toBe(200);
  });

  it("Should still refuse a client an operator denied, as a static DENY entry is refused, on a route in shadow", async () => {
    const t = testApp({ RATE_LIMIT: "100/1m", ADMIN_TOKEN, ROUTES: [{ pattern: "*/beta/*", rules: "100/1m", mode: "shadow" }] });
    const ip = uniqueIpv4();
    const denied = await t.admin(`deny?client=${ip}&ttl=600`, "POST");
    expect(denied.status).toBe(200);
    expect((await t.get("/x", ip)).status).toBe(403);
    const beta = await t.get("/beta/x", ip);
    expect(beta.status).toBe(403);
    expect(Number(beta.headers.get("retry-after"))).toBeGreaterThan(590);
    expect((await t.get("/beta/x", uniqueIpv4())).status).toBe(200);
  });

  it("Should answer a client it knows is denied from memory on a route in shadow, and keep refusing it while Redis fails", async () => {
    const redis = switchableRedis();
    const t = testApp({ RATE_LIMIT: "100/1m", ADMIN_TOKEN, ROUTES: [{ pattern: "*/beta/*", rules: "100/1m", mode: "shadow" }] }, { redisFetch: redis.fetch });
    const ip = uniqueIpv4();
    await t.admin(`deny?client=${ip}&ttl=600`, "POST");
    expect((await t.get("/beta/x", ip)).status).toBe(403);
    const calls = t.counter.redisCalls;
    expect((await t.get("/beta/x", ip)).status).toBe(403);
    expect(t.counter.redisCalls).toBe(calls);
    redis.down = true;
    t.clock.now += BLOCK_RECHECK_MS; // past the block's re-check: Redis is asked, and fails
    expect((await t.get("/beta/x", ip)).status).toBe(403);
    expect((await t.get("/beta/x", uniqueIpv4())).status).toBe(200);
  });

  it("Should let requests through when Redis fails, whatever FAILURE_MODE says: a route in shadow refuses no one for the limiter", async () => {
    const answer500 = (async () => new Response('{"error":"ERR internal"}', { status: 500 })) as unknown as typeof fetch;
    const t = testApp(
      { RATE_LIMIT: "5/1m", FAILURE_MODE: "closed", ROUTES: [{ pattern: "*/beta/*", rules: "5/1m", mode: "shadow" }] },
      { redisFetch: answer500 },
    );
    const ip = uniqueIpv4();
    expect((await t.get("/beta/x", ip)).status).toBe(200);
    expect((await t.get("/other", ip)).status).toBe(503);
    expect(t.logs.map((entry) => [entry.event, entry.route, entry.failureMode])).toEqual([
      ["redis-failure", "*/beta/*", "open"],
      ["redis-failure", "default", "closed"],
    ]);
  });
});
