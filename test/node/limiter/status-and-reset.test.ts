import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { algorithmNames, createMemoryLimiter } from "../../../src/limiter/index.ts";
import type { Limiter, Rule } from "../../../src/limiter/types.ts";
import { startHarness, T0, type Harness } from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const oneRule = (algorithm: Rule["algorithm"]): Rule[] => [{ name: "default", algorithm, limit: 5, windowMs: 10_000 }];
const request = { client: "203.0.113.7", scope: "api", now: T0 + 1_234 };

/** Every key's expiry time (absolute, so time passing changes nothing), to show that a status call moves none. */
async function ttls(prefix: string): Promise<Record<string, number>> {
  const keys = await h.keys(prefix);
  return Object.fromEntries(await Promise.all(keys.map(async (key) => [key, Number(await h.redis.call("PEXPIRETIME", key))] as const)));
}

describe.each(algorithmNames)("Status and reset on Redis: %s", (algorithm) => {
  it("Should report the remaining quota without spending it, so a client can then spend exactly that much", async () => {
    const limiter = h.limiter(oneRule(algorithm));
    await limiter.limit(request);
    await limiter.limit(request);
    const before = await ttls(limiter.prefix);
    const first = await limiter.status(request);
    const second = await limiter.status(request);
    expect(second).toEqual(first);
    expect(first.rules[0]!.remaining).toBe(3);
    expect(await ttls(limiter.prefix)).toEqual(before);
    const spent = [];
    for (let i = 0; i < first.rules[0]!.remaining; i++) spent.push((await limiter.limit(request)).allowed);
    expect(spent).toEqual([true, true, true]);
    expect((await limiter.limit(request)).allowed).toBe(false);
    expect((await limiter.status(request)).allowed).toBe(false);
  });

  it("Should delete the client's counters on reset, so its next request has the full quota", async () => {
    const limiter = h.limiter(oneRule(algorithm));
    for (let i = 0; i < 6; i++) await limiter.limit(request);
    expect((await limiter.limit(request)).allowed).toBe(false);
    expect(await limiter.reset(request)).toBeGreaterThan(0);
    expect(await h.keys(limiter.prefix)).toEqual([]);
    expect(await limiter.limit(request)).toMatchObject({ allowed: true, rules: [{ remaining: 4 }] });
  });
});

describe("Status and reset", () => {
  it("Should report every rule of a multi-rule route, and reset all of them at once", async () => {
    const rules: Rule[] = algorithmNames.map((algorithm) => ({ name: algorithm, algorithm, limit: 4, windowMs: 60_000 }));
    const limiter = h.limiter(rules);
    await limiter.limit(request);
    expect((await limiter.status(request)).rules.map((rule) => rule.remaining)).toEqual(algorithmNames.map(() => 3));
    const stored = await h.keys(limiter.prefix);
    expect(await limiter.reset(request)).toBe(stored.length);
    expect(await h.keys(limiter.prefix)).toEqual([]);
  });

  it("Should answer the same status in memory as on Redis", async () => {
    const rules: Rule[] = algorithmNames.map((algorithm) => ({ name: algorithm, algorithm, limit: 4, windowMs: 60_000 }));
    const redis = h.limiter(rules);
    const memory: Limiter = createMemoryLimiter(rules);
    for (const limiter of [redis, memory]) {
      await limiter.limit(request);
      await limiter.limit({ ...request, now: request.now + 500 });
    }
    const later = { ...request, now: request.now + 20_000 };
    expect(await memory.status(later)).toEqual(await redis.status(later));
    expect(await memory.reset(later)).toBe(await redis.reset(later));
  });
});
