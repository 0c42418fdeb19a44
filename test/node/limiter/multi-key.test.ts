import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildKey } from "../../../src/keys/build-key.ts";
import { createClientEntries, createMemoryLimiter, ModelStore } from "../../../src/limiter/index.ts";
import type { Rule } from "../../../src/limiter/types.ts";
import { startHarness, T0, type Harness } from "./harness.ts";
import { MIXED_RULES } from "./rules.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** A route's rules counting an address (rules 0, 2, 4) and an API key (rules 1, 3): MIXED_RULES, every algorithm. */
const RULES: Rule[] = MIXED_RULES;
const clientsOf = (ip: string, key: string) => [ip, key, ip, key, ip];
const SCOPE = "api";

/** Requests from a few addresses with a few keys, each some ms after the previous, each of some cost. */
const trace = fc.array(
  fc.record({
    ip: fc.constantFrom("10.0.0.1", "10.0.0.2"),
    key: fc.constantFrom("key:a", "key:b", "key:c"),
    gapMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1_500 })),
    cost: fc.integer({ min: 1, max: 3 }),
  }),
  { minLength: 1, maxLength: 60 },
);

describe("a route whose rules count different clients, Lua on Redis against the TypeScript model", () => {
  it("Should give identical decisions on random traces of (address, API key, time, cost)", async () => {
    await fc.assert(
      fc.asyncProperty(trace, async (requests) => {
        const redis = h.limiter(RULES);
        const model = createMemoryLimiter(RULES, { prefix: redis.prefix });
        let now = T0;
        for (const { ip, key, gapMs, cost } of requests) {
          now += gapMs;
          const request = { client: ip, clients: clientsOf(ip, key), scope: SCOPE, cost, now };
          expect(await redis.limit(request), `at ${now - T0} ms, ${ip} with ${key}`).toEqual(await model.limit(request));
        }
      }),
      { numRuns: 30 },
    );
  }, 60_000);

  it("Should keep every key of the route under one hash tag, the route's, with each rule's client after it", async () => {
    const limiter = h.limiter(RULES);
    await limiter.limit({ client: "10.0.0.1", clients: clientsOf("10.0.0.1", "key:a"), scope: SCOPE, now: T0 });
    const keys = await h.keys(limiter.prefix);
    expect(keys).toHaveLength(5);
    expect(keys.filter((key) => key.includes(`:{route:${SCOPE}}:10.0.0.1:`))).toHaveLength(3);
    expect(keys.filter((key) => key.includes(`:{route:${SCOPE}}:key:a:`))).toHaveLength(2);
  });
});

describe("list entries on a route whose rules count different clients", () => {
  const RULES_2: Rule[] = [
    { name: "per-ip", algorithm: "fixed-window", limit: 5, windowMs: 60_000 },
    { name: "per-key", algorithm: "fixed-window", limit: 5, windowMs: 60_000 },
  ];
  /** The same limiter on Redis and in memory, and a way to list a client on both. */
  function both() {
    const redis = h.limiter(RULES_2);
    const store = new ModelStore();
    const model = createMemoryLimiter(RULES_2, { prefix: redis.prefix, store });
    const entries = createClientEntries(h.runner, redis.prefix, [SCOPE]);
    const list = async (client: string, kind: "allow" | "deny", ttlMs?: number) => {
      await entries.setList(client, kind, ttlMs);
      store.set(buildKey({ prefix: redis.prefix, tag: "list", client, scope: SCOPE, hashTag: "route" }), kind, ttlMs ?? Number.POSITIVE_INFINITY, T0);
    };
    const decide = async (ip: string, key: string) => {
      const request = { client: ip, clients: [ip, key], scope: SCOPE, now: T0 };
      const [fromRedis, fromModel] = [await redis.limit(request), await model.limit(request)];
      // Redis counts an entry's TTL on its own clock, the model on T0: they agree to the second.
      const untimed = ({ listExpiresAt: _, retryAt: __, ...rest }: typeof fromRedis) => rest;
      expect(untimed(fromRedis)).toEqual(untimed(fromModel));
      return fromRedis;
    };
    return { redis, list, decide };
  }

  it("Should deny a request when any of its clients is denied, from any address or with any key", async () => {
    const { list, decide } = both();
    await list("key:spent", "deny", 60_000);
    expect(await decide("10.0.0.1", "key:spent")).toMatchObject({ allowed: false, reason: "deny-list", retryAfter: 60 });
    expect(await decide("10.0.0.2", "key:spent")).toMatchObject({ allowed: false, reason: "deny-list" });
    expect(await decide("10.0.0.1", "key:other")).toMatchObject({ allowed: true, rules: [{ remaining: 4 }, { remaining: 4 }] });
  });

  it("Should let deny beat allow, and announce the longest of several denials", async () => {
    const { list, decide } = both();
    await list("10.0.0.9", "allow");
    await list("key:x", "deny", 30_000);
    expect(await decide("10.0.0.9", "key:x")).toMatchObject({ reason: "deny-list", retryAfter: 30 });
    await list("10.0.0.8", "deny", 90_000);
    expect(await decide("10.0.0.8", "key:x")).toMatchObject({ reason: "deny-list", retryAfter: 90 });
    expect(await decide("10.0.0.9", "key:y")).toMatchObject({ allowed: true, reason: "allow-list" });
    // The same, whichever client's entry is read first: a denied address with an allowed key.
    await list("10.0.0.7", "deny", 45_000);
    await list("key:ok", "allow");
    expect(await decide("10.0.0.7", "key:ok")).toMatchObject({ allowed: false, reason: "deny-list", retryAfter: 45 });
    // The longer denial counts when it is read last too, and one that never expires announces no time.
    await list("10.0.0.6", "deny", 20_000);
    expect(await decide("10.0.0.6", "key:x")).toMatchObject({ reason: "deny-list", retryAfter: 30 });
    await list("key:forever", "deny");
    const forever = await decide("10.0.0.6", "key:forever");
    expect(forever).toMatchObject({ allowed: false, reason: "deny-list" });
    expect(forever.retryAfter).toBeUndefined();
    // And when it is read first, a timed denial read after it does not shorten it.
    await list("10.0.0.5", "deny");
    const foreverFirst = await decide("10.0.0.5", "key:x");
    expect(foreverFirst).toMatchObject({ allowed: false, reason: "deny-list" });
    expect(foreverFirst.retryAfter).toBeUndefined();
  });

  it("Should write the client's own entry, the route's copy and the index, record the route, and remove all but the record", async () => {
    const { redis } = both();
    const entries = createClientEntries(h.runner, redis.prefix, [SCOPE]);
    await entries.setList("10.0.0.7", "deny", 60_000);
    expect(await h.keys(redis.prefix)).toEqual([
      `${redis.prefix}:list-copy-routes`,
      `${redis.prefix}:list-index`,
      `${redis.prefix}:list:{10.0.0.7}`,
      `${redis.prefix}:list:{route:${SCOPE}}:10.0.0.7`,
    ]);
    expect(await h.redis.smembers(`${redis.prefix}:list-copy-routes`)).toEqual([SCOPE]);
    expect(await entries.deleteList("10.0.0.7", "deny")).toBe(true);
    expect(await h.keys(redis.prefix)).toEqual([`${redis.prefix}:list-copy-routes`]);
    expect(await entries.deleteList("10.0.0.7", "deny")).toBe(false);
  });
});
