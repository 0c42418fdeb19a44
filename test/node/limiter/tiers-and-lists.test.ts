import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClientEntries, createLimiter, createMemoryLimiter, ModelStore } from "../../../src/limiter/index.ts";
import type { TieredRules } from "../../../src/limiter/plan.ts";
import type { Limiter, Rule } from "../../../src/limiter/types.ts";
import { startHarness, T0, type Harness } from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const hourly = (limit: number): Rule => ({ name: "hourly", algorithm: "fixed-window", limit, windowMs: 3_600_000 });
const tiers: TieredRules = {
  tiers: { free: [hourly(2)], pro: [hourly(5), { name: "second", algorithm: "token-bucket", limit: 3, windowMs: 1_000 }] },
  defaultTier: "free",
};
/** The same tiers with the default listed last, after the tier a client may be on. */
const reordered: TieredRules = { tiers: { pro: tiers.tiers.pro!, free: tiers.tiers.free! }, defaultTier: "free" };
const request = (client: string, now = T0) => ({ client, scope: "api", now });

/** Sends `n` requests at T0 and tells which were admitted. */
async function admitted(limiter: Limiter, client: string, n: number): Promise<boolean[]> {
  const out = [];
  for (let i = 0; i < n; i++) out.push((await limiter.limit(request(client))).allowed);
  return out;
}

describe("Tiers on Redis: the client's tier is read in the same script call", () => {
  it("Should apply the default tier to a client without one, and a stored tier from the next request on", async () => {
    const prefix = h.prefix();
    const limiter = createLimiter(tiers, { runner: h.runner, prefix });
    const entries = createClientEntries(h.runner, prefix);
    expect(await admitted(limiter, "a", 3)).toEqual([true, true, false]);
    await entries.setTier("b", "pro");
    expect(await admitted(limiter, "b", 4)).toEqual([true, true, true, false]);
    expect(await limiter.limit(request("b"))).toMatchObject({ allowed: false, tier: "pro", rule: "second" });
    expect(await limiter.limit(request("a"))).toMatchObject({ allowed: false, tier: "free", rule: "hourly" });
  });

  it("Should fall back to the default tier when the stored tier no longer exists, and after the tier is removed", async () => {
    const prefix = h.prefix();
    const limiter = createLimiter(tiers, { runner: h.runner, prefix });
    const entries = createClientEntries(h.runner, prefix);
    expect(await entries.setTier("c", "gold")).toBeUndefined();
    expect(await limiter.limit(request("c"))).toMatchObject({ tier: "free" });
    expect(await entries.setTier("c", "pro")).toBe("gold");
    expect(await limiter.limit(request("c"))).toMatchObject({ tier: "pro" });
    expect(await entries.deleteTier("c")).toBe(true);
    expect(await entries.deleteTier("c")).toBe(false);
    expect(await limiter.limit(request("c"))).toMatchObject({ tier: "free" });
  });

  it("Should pick a stored tier listed before the default tier, and the default for an unknown one", async () => {
    const prefix = h.prefix();
    const limiter = createLimiter(reordered, { runner: h.runner, prefix });
    const entries = createClientEntries(h.runner, prefix);
    await entries.setTier("p", "pro");
    await entries.setTier("q", "gold");
    expect(await limiter.limit(request("p"))).toMatchObject({ tier: "pro" });
    expect(await limiter.limit(request("q"))).toMatchObject({ tier: "free" });
  });

  it("Should decide a policy of one tier with one rule by its tier's rule and lists, even a tier named like a list verdict", async () => {
    const prefix = h.prefix();
    const limiter = createLimiter({ tiers: { allow: [hourly(2)] }, defaultTier: "allow" }, { runner: h.runner, prefix });
    const entries = createClientEntries(h.runner, prefix);
    await entries.setTier("g", "allow");
    expect(await admitted(limiter, "g", 3)).toEqual([true, true, false]);
    await entries.setList("h", "deny", 30_000);
    expect(await limiter.limit(request("h"))).toMatchObject({ allowed: false, reason: "deny-list", tier: "allow" });
    await entries.setList("g", "allow");
    expect(await admitted(limiter, "g", 2)).toEqual([true, true]);
  });

  it("Should keep each tier's counters apart, even for rules of the same name", async () => {
    const limiter = h.limiter([hourly(1)]);
    const tiered = createLimiter(tiers, { runner: h.runner, prefix: limiter.prefix });
    await tiered.limit(request("d"));
    expect((await h.keys(limiter.prefix)).filter((key) => key.includes(":fixed:"))).toEqual([expect.stringMatching(/^t\w+:fixed:\{d\}:api:free\/hourly:\d+$/)]);
  });
});

describe("Dynamic lists on Redis: the client's entry is read in the same script call", () => {
  it("Should refuse a denied client with the entry's remaining time, charging nothing, until the entry goes", async () => {
    const limiter = h.limiter([hourly(10)]);
    const entries = createClientEntries(h.runner, limiter.prefix);
    await entries.setList("e", "deny", 30_000);
    const denied = await limiter.limit(request("e"));
    expect(denied).toMatchObject({ allowed: false, reason: "deny-list", rules: [] });
    expect(denied.retryAfter).toBeGreaterThan(25);
    expect(denied.retryAfter).toBeLessThanOrEqual(30);
    expect(await entries.deleteList("e", "allow")).toBe(false);
    expect(await entries.deleteList("e", "deny")).toBe(true);
    expect(await limiter.limit(request("e"))).toMatchObject({ allowed: true, rules: [{ remaining: 9 }] });
  });

  it("Should admit an allowed client without counting it, and report its entry and quota in a status", async () => {
    const limiter = h.limiter([hourly(1)]);
    const entries = createClientEntries(h.runner, limiter.prefix);
    expect(await entries.setList("f", "allow")).toBeUndefined();
    expect(await admitted(limiter, "f", 3)).toEqual([true, true, true]);
    expect((await h.keys(limiter.prefix)).filter((key) => key.includes(":fixed:"))).toEqual([]);
    expect(await limiter.status(request("f"))).toMatchObject({ allowed: true, reason: "allow-list", rules: [{ remaining: 1 }] });
    expect(await entries.setList("f", "deny")).toBe("allow");
    const status = await limiter.status(request("f"));
    expect(status).toMatchObject({ allowed: false, reason: "deny-list", rules: [{ remaining: 1 }] });
    expect(status.retryAt).toBeUndefined();
  });

  it("Should make a timed entry permanent when it is set again without a TTL", async () => {
    const limiter = h.limiter([hourly(10)]);
    const entries = createClientEntries(h.runner, limiter.prefix);
    await entries.setList("p", "deny", 30_000);
    expect(await entries.setList("p", "deny")).toBe("deny");
    expect(await h.redis.pttl(`${limiter.prefix}:list:{p}`)).toBe(-1);
    const denied = await limiter.limit(request("p"));
    expect(denied).toMatchObject({ allowed: false, reason: "deny-list" });
    expect(denied.retryAfter).toBeUndefined();
  });
});

describe("Tiers and lists in memory", () => {
  it("Should fall back to the default tier for a stored tier that no longer exists, as the Lua does, whichever tier comes first", async () => {
    const prefix = h.prefix();
    const store = new ModelStore();
    const redis = createLimiter(reordered, { runner: h.runner, prefix });
    const memory = createMemoryLimiter(reordered, { prefix, store });
    await createClientEntries(h.runner, prefix).setTier("c", "gold");
    store.set(`${prefix}:tier:{c}`, "gold", Number.POSITIVE_INFINITY, T0);
    const decision = await memory.limit(request("c"));
    expect(decision).toMatchObject({ tier: "free" });
    expect(decision).toEqual(await redis.limit(request("c")));
  });

  it("Should decide as the Lua does, on the same entries and the same requests", async () => {
    const prefix = h.prefix();
    const store = new ModelStore();
    const redis = createLimiter(tiers, { runner: h.runner, prefix });
    const memory = createMemoryLimiter(tiers, { prefix, store });
    const entries = createClientEntries(h.runner, prefix);
    await entries.setTier("g", "pro");
    store.set(`${prefix}:tier:{g}`, "pro", Number.POSITIVE_INFINITY, T0);
    await entries.setList("k", "allow");
    store.set(`${prefix}:list:{k}`, "allow", Number.POSITIVE_INFINITY, T0);
    for (let i = 0; i < 8; i++) {
      for (const client of ["g", "k", "new"]) {
        const now = T0 + i * 300;
        expect(await memory.limit(request(client, now))).toEqual(await redis.limit(request(client, now)));
        expect(await memory.status(request(client, now))).toEqual(await redis.status(request(client, now)));
      }
    }
  });
});
