import { describe, expect, it } from "vitest";
import { createFakeRunner } from "../../test/fakes/fake-runner.ts";
import { algorithmNames, createClientEntries, createLimiter, createMemoryLimiter, isAlgorithmName } from "./index.ts";
import { sha1 as multiRuleSha1 } from "./multi-rule/script.ts";
import type { Rule } from "./types.ts";

const runner = createFakeRunner(() => [1, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0]);
const deps = { runner, prefix: "rate" };
const second: Rule = { name: "second", algorithm: "fixed-window", limit: 10, windowMs: 1_000 };
const hour: Rule = { name: "hour", algorithm: "token-bucket", limit: 1_000, windowMs: 3_600_000 };

describe("createLimiter", () => {
  it("Should refuse a clock before the epoch", async () => {
    for (const limiter of [createLimiter([second], deps), createMemoryLimiter([second])]) {
      await expect(limiter.limit({ client: "c", scope: "", now: -1 })).rejects.toThrow("now must be ms since the epoch, got -1");
    }
  });

  it("Should bound a token bucket's burst × window as it bounds limit × window, beyond which the script's arithmetic is inexact", () => {
    expect(() => createLimiter([{ ...hour, limit: 1, windowMs: 2 ** 30, burst: 2 ** 21 }], deps)).toThrow(
      'rules[0] ("hour"): limit × windowMs is too large (max 2^50)',
    );
  });

  it("Should refuse more clients than rules, rather than let the extra client's list entry decide", async () => {
    const twoKeys: Rule[] = [second, { ...second, name: "other" }];
    for (const limiter of [createLimiter(twoKeys, deps), createMemoryLimiter(twoKeys)]) {
      await expect(limiter.limit({ client: "a", clients: ["a", "b", "c"], scope: "", now: 1 })).rejects.toThrow("expected one client per rule (2), got 3");
    }
  });

  it("Should give a tiered limiter's default tier's rules as its rules, whichever tier comes first", () => {
    const tiered = { tiers: { pro: [hour], free: [second] }, defaultTier: "free" };
    expect(createLimiter(tiered, deps).rules).toEqual([second]);
    expect(createMemoryLimiter(tiered).rules).toEqual([second]);
  });

  it("Should reset only the rules named, and call Redis not at all when none of them is the limiter's", async () => {
    const resets = createFakeRunner(() => 1);
    const limiter = createLimiter([second, hour], { runner: resets, prefix: "rate" });
    expect(await limiter.reset({ client: "c", scope: "api", now: 5_000 }, ["hour"])).toBe(1);
    expect(await limiter.reset({ client: "c", scope: "api", now: 5_000 }, ["daily"])).toBe(0);
    expect(resets.calls.map((call) => call.keys)).toEqual([["rate:gcra:{c}:api:hour"]]);
  });

  it("Should list the five algorithms the config may name", () => {
    expect(algorithmNames).toEqual(["fixed-window", "sliding-log", "sliding-window", "sliding-window-approx", "token-bucket"]);
    expect([isAlgorithmName("sliding-log"), isAlgorithmName("leaky-bucket"), isAlgorithmName("toString")]).toEqual([true, false, false]);
  });

  it("Should decide several rules with one call of the multi-rule script, the rule names in the keys", async () => {
    runner.calls.length = 0;
    await createLimiter([second, hour], deps).limit({ client: "c", scope: "api", cost: 2, now: 5_000 });
    expect(runner.calls).toEqual([
      {
        command: "evalsha",
        script: multiRuleSha1,
        keys: ["rate:list:{c}", "rate:fixed:{c}:api:second:5", "rate:gcra:{c}:api:hour"],
        args: ["5000", "2", "", "", "2", "fixed", "10", "1000", "10", "1", "gcra", "1000", "3600000", "1000", "1"],
      },
    ]);
  });

  it("Should refuse bad rules once, at creation, naming the rule", () => {
    const bad: [Rule[], string][] = [
      [[], "a limiter needs at least one rule"],
      [[{ ...second, algorithm: "leaky-bucket" as never }], 'rules[0] ("second"): unknown algorithm "leaky-bucket"'],
      [[second, { ...hour, name: "second" }], 'rules[1] ("second"): rule names must be non-empty strings without ":", and unique'],
      // `api:hourly` + `daily` and `api` + `hourly:daily` would name one Redis key.
      [[{ ...hour, name: "hourly:daily" }], 'rules[0] ("hourly:daily"): rule names must be non-empty strings without ":", and unique'],
      [[{ ...hour, name: undefined as never }], 'rules[0] (undefined): rule names must be non-empty strings without ":", and unique'],
      [[null as never], "rules[0]: expected a rule object, got null"],
      [second as never, 'rules: expected an array of rules, or { tiers, defaultTier }, got {"name":"second"'],
      [{ tiers: { free: second }, defaultTier: "free" } as never, 'tiers.free.rules: expected an array of rules, got {"name":"second"'],
      [[{ ...second, limit: 0 }], 'rules[0] ("second"): limit must be an integer >= 1, got 0'],
      [[{ ...second, windowMs: 1.5 }], 'rules[0] ("second"): windowMs must be an integer >= 1, got 1.5'],
      [[{ ...hour, burst: -1 }], 'rules[0] ("hour"): burst must be an integer >= 1, got -1'],
      [[{ ...second, limit: Number.NaN }], 'rules[0] ("second"): limit must be an integer >= 1, got NaN'],
      [[{ ...second, windowMs: Number.POSITIVE_INFINITY }], 'rules[0] ("second"): windowMs must be an integer >= 1, got Infinity'],
      [[{ ...second, buckets: 10 }], 'rules[0] ("second"): only sliding-window has buckets'],
      [[{ ...second, burst: 10 }], 'rules[0] ("second"): only token-bucket has a burst'],
      [[{ ...second, algorithm: "sliding-window", buckets: 101 }], 'rules[0] ("second"): buckets must be from 2 to 100, got 101'],
      [
        [{ ...second, algorithm: "sliding-window", limit: 2 ** 40, windowMs: 1 }],
        'rules[0] ("second"): limit must be below 2^37 for sliding-window, got 1099511627776',
      ],
    ];
    for (const [rules, message] of bad) expect(() => createLimiter(rules, deps)).toThrow(message);
  });

  it("Should refuse a prefix that is no string, or with a brace, which would move a client's keys to different Redis Cluster slots", () => {
    expect(() => createLimiter([second], { runner, prefix: "app{1}" })).toThrow(
      'prefix: expected a string without "{" or "}" (Redis Cluster reads a hash tag from them), got "app{1}"',
    );
    expect(() => createLimiter([second], { runner, prefix: undefined as never })).toThrow('prefix: expected a string without "{" or "}"');
    expect(() => createClientEntries(runner, "app}")).toThrow('prefix: expected a string without "{" or "}"');
    expect(createLimiter([second], { runner, prefix: "" }).rules).toHaveLength(1);
  });

  it("Should refuse when created a missing runner, or one without evalsha and eval, not on the first decision", () => {
    expect(() => createLimiter([second], { prefix: "app" } as never)).toThrow("runner: expected an object with evalsha and eval methods, got undefined");
    expect(() => createLimiter([second], { runner: {}, prefix: "app" } as never)).toThrow("runner: expected an object with evalsha and eval methods, got {}");
    expect(() => (createLimiter as (policy: unknown) => unknown)([second])).toThrow("runner: expected an object with evalsha and eval methods");
  });

  it("Should refuse a cost or a clock that is not a whole number", async () => {
    const limiter = createLimiter([second], deps);
    await expect(limiter.limit({ client: "c", scope: "", cost: 0, now: 1 })).rejects.toThrow("cost must be an integer >= 1, got 0");
    await expect(limiter.limit({ client: "c", scope: "", now: 1.5 })).rejects.toThrow("now must be ms since the epoch, got 1.5");
    await expect(limiter.limit({ client: "c", scope: "", cost: Number("two"), now: 1 })).rejects.toThrow("cost must be an integer >= 1, got NaN");
  });

  it("Should refuse a request whose scope or client is not a string (a JavaScript caller's), instead of writing undefined into its keys", async () => {
    for (const limiter of [createLimiter([second], deps), createMemoryLimiter([second])]) {
      await expect(limiter.limit({ client: "c", now: 1 } as never)).rejects.toThrow("scope must be a string, got undefined");
      await expect(limiter.limit({ client: 7, scope: "", now: 1 } as never)).rejects.toThrow("client must be a non-empty string, got 7");
    }
    const twoKeys: Rule[] = [second, { ...second, name: "other" }];
    for (const limiter of [createLimiter(twoKeys, deps), createMemoryLimiter(twoKeys)]) {
      // A string has a length and can be iterated: "xy" would count clients "x" and "y".
      await expect(limiter.limit({ client: "c", clients: "xy", scope: "", now: 1 } as never)).rejects.toThrow('clients must be an array of strings, got "xy"');
      await expect(limiter.limit({ client: "c", clients: null, scope: "", now: 1 } as never)).rejects.toThrow("clients must be an array of strings, got null");
    }
  });

  it("Should refuse a clock at or past 2^48 ms (the year 10889), where sliding-window's bucket index would wrap and admit everything", async () => {
    const rules: Rule[] = [{ name: "default", algorithm: "sliding-window", limit: 2, windowMs: 32 }];
    const message = "now must be ms since the epoch before 2^48 (the year 10889), got 281474976710656";
    await expect(createLimiter(rules, deps).limit({ client: "c", scope: "", now: 2 ** 48 })).rejects.toThrow(message);
    const memory = createMemoryLimiter(rules);
    await expect(memory.limit({ client: "c", scope: "", now: 2 ** 48 })).rejects.toThrow(message);
    const admitted = [];
    for (let i = 0; i < 4; i++) admitted.push((await memory.limit({ client: "c", scope: "", now: 2 ** 48 - 1 })).allowed);
    expect(admitted).toEqual([true, true, false, false]);
  });
});
