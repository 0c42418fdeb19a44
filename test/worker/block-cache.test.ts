import { BLOCK_RECHECK_MS } from "../../src/block-cache.ts";
import { describe, expect, it } from "vitest";
import { switchableRedis, testApp, uniqueIpv4, uniquePrefix } from "./helpers.ts";

const ADMIN_TOKEN = "adm1n-t0ken-for-the-block-cache-test-0123456789";

describe("the block cache, end to end", () => {
  it("Should refuse a blocked client from isolate memory, with no Redis call, until the block ends", async () => {
    const t = testApp({ RATE_LIMIT: "2/10s" });
    const ip = uniqueIpv4();
    await t.get("/", ip);
    await t.get("/", ip);
    const first429 = await t.get("/", ip);
    expect(first429.status).toBe(429);
    const callsAtFirstRefusal = t.counter.redisCalls;

    for (let i = 0; i < 5; i++) {
      t.clock.now += 1_000;
      const res = await t.get("/", ip);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    expect(t.counter.redisCalls).toBe(callsAtFirstRefusal);

    // Other clients still go to Redis.
    await t.get("/", uniqueIpv4());
    expect(t.counter.redisCalls).toBe(callsAtFirstRefusal + 1);

    t.clock.now += 10_000;
    expect((await t.get("/", ip)).status).toBe(200);
    expect(t.counter.redisCalls).toBe(callsAtFirstRefusal + 2);
  });

  it("Should forget a block once Redis admits the client again (reset in another isolate), so a later Redis failure follows FAILURE_MODE", async () => {
    const vars = { RATE_LIMIT: "1/1m", FAILURE_MODE: "open", KEY_PREFIX: uniquePrefix(), ADMIN_TOKEN };
    const redis = switchableRedis();
    const isolate = testApp(vars, { redisFetch: redis.fetch });
    const other = testApp(vars);
    const ip = uniqueIpv4();
    await isolate.get("/", ip);
    expect((await isolate.get("/", ip)).status).toBe(429);
    const reset = await other.admin(`reset?client=${ip}`, "POST");
    expect(reset.status).toBe(200);
    isolate.clock.now += BLOCK_RECHECK_MS;
    expect((await isolate.get("/", ip)).status).toBe(200);
    redis.down = true;
    expect((await isolate.get("/", ip)).status).toBe(200);
    expect(isolate.logs.filter((entry) => entry.event === "redis-failure")).toHaveLength(1);
  });

  it("Should keep refusing a client another isolate moved to a higher tier from memory, with the old tier's headers, for at most BLOCK_RECHECK_MS", async () => {
    const vars = {
      ADMIN_TOKEN,
      KEY_PREFIX: uniquePrefix(),
      TIERS: { free: "2/1m", pro: ["50/1m", "10/1s"] },
      ROUTES: [{ pattern: "*/api/*", name: "api", tiers: "free" }],
    };
    const operator = testApp(vars);
    const other = testApp(vars);
    other.clock.now = operator.clock.now;
    const ip = uniqueIpv4();
    for (const expected of [200, 200, 429]) expect((await other.get("/api/x", ip)).status).toBe(expected);
    const set = await operator.admin(`tier?client=${ip}&tier=pro`, "POST");
    expect(set.status).toBe(200);
    expect((await operator.get("/api/x", ip)).status).toBe(200);
    const stale = await other.get("/api/x", ip);
    expect([stale.status, stale.headers.get("ratelimit-policy")]).toEqual([429, '"default";q=2;w=60']);
    other.clock.now += BLOCK_RECHECK_MS - 1;
    expect((await other.get("/api/x", ip)).status).toBe(429);
    other.clock.now += 1;
    const fresh = await other.get("/api/x", ip);
    expect([fresh.status, fresh.headers.get("ratelimit-policy")]).toEqual([200, '"50-per-1m";q=50;w=60, "10-per-1s";q=10;w=1']);
  });

  it("Should count down Retry-After from memory, never announcing less than the remaining block", async () => {
    const t = testApp({ RATE_LIMIT: "1/10s" });
    const ip = uniqueIpv4();
    await t.get("/", ip);
    const refused = await t.get("/", ip);
    const announced = Number(refused.headers.get("retry-after"));
    t.clock.now += 3_500;
    expect(Number((await t.get("/", ip)).headers.get("retry-after"))).toBe(Math.ceil(announced - 3.5));
  });

  it("Should leave out of an answer from memory the rules whose window has reset since the refusal", async () => {
    const t = testApp({ RATE_LIMIT: "1000/1h", ROUTES: JSON.stringify([{ pattern: "*/api/*", rules: ["2/10s", "2/1h"] }]) });
    const ip = uniqueIpv4();
    for (let i = 0; i < 2; i++) expect((await t.get("/api/x", ip)).status).toBe(200);
    t.clock.now += 5_000;
    expect((await t.get("/api/x", ip)).headers.get("ratelimit")).toMatch(/^"2-per-10s";r=0;t=5, "2-per-1h";r=0;t=\d+$/);
    t.clock.now += 7_000;
    const fromMemory = await t.get("/api/x", ip);
    expect(fromMemory.status).toBe(429);
    expect(fromMemory.headers.get("ratelimit")).toMatch(/^"2-per-1h";r=0;t=\d+$/);
  });
});

describe("refusal logs under a flood, end to end", () => {
  it("Should write one refusal line for a flood of 1,000 refused requests from one client", async () => {
    const t = testApp({ RATE_LIMIT: "5/1m" });
    const ip = uniqueIpv4();
    const statuses: number[] = [];
    for (let i = 0; i < 1_005; i++) statuses.push((await t.get("/", ip)).status);
    expect(statuses.filter((status) => status === 429)).toHaveLength(1_000);
    expect(t.logs.filter((entry) => entry.event === "refusal")).toEqual([expect.objectContaining({ client: ip, route: "default" })]);
  });

  it("Should write one refusal line for 8 s of a flood against a token bucket, whose every block ends with its next token", async () => {
    // 10/1s: a refusal's block ends 100 ms later, when the next token comes, and the flood starts another.
    const t = testApp({ RATE_LIMIT: JSON.stringify({ limit: 10, window: "1s", algorithm: "token-bucket" }) });
    const ip = uniqueIpv4();
    const statuses: number[] = [];
    for (let i = 0; i < 400; i++, t.clock.now += 20) statuses.push((await t.get("/", ip)).status);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(250);
    expect(t.logs.filter((entry) => entry.event === "refusal")).toHaveLength(1);
    // Past 10 s from that line, the same flood is worth one line more.
    for (let i = 0; i < 150; i++, t.clock.now += 20) await t.get("/", ip);
    expect(t.logs.filter((entry) => entry.event === "refusal")).toHaveLength(2);
  });

  it("Should write a refusal line again when a client an operator reset floods again at once", async () => {
    const t = testApp({ ADMIN_TOKEN, RATE_LIMIT: "1/1m" });
    const ip = uniqueIpv4();
    for (let i = 0; i < 3; i++) await t.get("/", ip);
    const reset = await t.admin(`reset?client=${ip}`, "POST");
    expect(reset.status).toBe(200);
    for (let i = 0; i < 3; i++) await t.get("/", ip);
    expect(t.logs.filter((entry) => entry.event === "refusal")).toHaveLength(2);
  });
});

describe("refusal logs when a flood begins, end to end", () => {
  it("Should write one refusal line when 30 requests are in flight at once as a budget of 5 runs out", async () => {
    const t = testApp({ RATE_LIMIT: "5/1m", REDIS_TIMEOUT_MS: "10000" });
    const ip = uniqueIpv4();
    const statuses = await Promise.all(Array.from({ length: 30 }, async () => (await t.get("/", ip)).status));
    expect(statuses.filter((status) => status === 429)).toHaveLength(25);
    expect(t.logs.filter((entry) => entry.event === "refusal")).toHaveLength(1);
    expect((await t.get("/", ip)).status).toBe(429);
  });
});
