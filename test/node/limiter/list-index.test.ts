import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClientEntries, createLimiter } from "../../../src/limiter/index.ts";
import { deleteEntry, readEntry, recordCopyRoutes, setEntryIfAbsent } from "../../../src/limiter/entries/script.ts";
import type { Rule, ScriptRunner } from "../../../src/limiter/types.ts";
import { startHarness, T0, type Harness } from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const RULES: Rule[] = [
  { name: "per-ip", algorithm: "fixed-window", limit: 5, windowMs: 60_000 },
  { name: "per-key", algorithm: "fixed-window", limit: 5, windowMs: 60_000 },
];

/** A route "api" counting addresses and keys, decided on Redis, and the entries as two deploys see them: before the route existed, and after. */
function setup(runner: ScriptRunner = h.runner) {
  const prefix = h.prefix();
  const limiter = createLimiter(RULES, { runner: h.runner, prefix });
  const before = createClientEntries(h.runner, prefix, []);
  const after = createClientEntries(runner, prefix, ["api"]);
  const decide = (ip: string, key = "key:k") => limiter.limit({ client: ip, clients: [ip, key], scope: "api", now: T0 });
  return { prefix, before, after, decide };
}

describe("the index of dynamic list entries", () => {
  it("Should report a retried removal as done when the first try removed the client's own entry but failed on the route's copy", async () => {
    let failures = 1;
    const runner: ScriptRunner = {
      evalsha: async (sha1, keys, args) => {
        if (sha1 === deleteEntry.sha1 && keys[0]!.includes("{route:") && failures-- > 0) throw new Error("Redis EVALSHA failed with 502");
        return h.runner.evalsha(sha1, keys, args);
      },
      eval: (script, keys, args) => h.runner.eval(script, keys, args),
    };
    const { after: entries, decide } = setup(runner);
    await entries.setList("10.0.0.12", "deny");
    await expect(entries.deleteList("10.0.0.12", "deny")).rejects.toThrow("502");
    expect(await decide("10.0.0.12")).toMatchObject({ allowed: false, reason: "deny-list" });
    expect(await entries.deleteList("10.0.0.12", "deny")).toBe(true);
    expect(await decide("10.0.0.12")).toMatchObject({ allowed: true });
    expect(await entries.deleteList("10.0.0.12", "deny")).toBe(false);
  });

  it("Should list every unexpired entry once, with its kind and time left, soonest to expire first and the unexpiring last", async () => {
    const { before: entries } = setup();
    await entries.setList("10.0.0.1", "allow");
    await entries.setList("10.0.0.2", "deny", 60_000);
    await entries.setList("10.0.0.3", "deny", 30);
    await entries.setList("key:abc", "deny", 30_000);
    await entries.setList("10.0.0.1", "deny");
    await sleep(60);
    const { entries: listed, next } = await entries.listEntries(undefined, 10);
    expect(listed.map(({ client, kind }) => `${kind} ${client}`)).toEqual(["deny key:abc", "deny 10.0.0.2", "deny 10.0.0.1"]);
    expect(listed[0]!.ttlMs).toBeGreaterThan(29_000);
    expect(listed[0]!.ttlMs).toBeLessThanOrEqual(30_000);
    expect(listed[2]!.ttlMs).toBeNull();
    expect(next).toBeNull();
    const first = await entries.listEntries(undefined, 1);
    expect(await entries.listEntries(first.next!, 1)).toMatchObject({ entries: [{ client: "10.0.0.2" }], next: expect.any(String) });
    expect(await entries.listEntries("inf:deny:10.0.0.1", 10)).toEqual({ entries: [], next: null });
  });

  it("Should read each entry live throughout the paging once, in order, while entries before the cursor are removed or added, ties of expiry included", async () => {
    const { prefix, before: entries } = setup();
    const unexpiring = ["allow:10.0.1.9", "deny:10.0.1.1", "deny:10.0.1.10", "deny:10.0.1.2", "deny:10.0.1.3", "deny:key:ab"];
    for (const member of unexpiring) await entries.setList(member.slice(member.indexOf(":") + 1), member.startsWith("allow") ? "allow" : "deny");
    // Three entries expiring in the same millisecond, as the index would hold them had they been written together.
    const at = Date.now() + 60_000;
    await h.redis.zadd(`${prefix}:list-index`, at, "deny:10.0.2.3", at, "deny:10.0.2.1", at, "deny:10.0.2.2");
    const seen: string[] = [];
    const read = async (after: string | undefined) => {
      const page = await entries.listEntries(after, 2);
      seen.push(...page.entries.map(({ kind, client }) => `${kind}:${client}`));
      return page.next;
    };
    let next = await read(undefined);
    expect(seen).toEqual(["deny:10.0.2.1", "deny:10.0.2.2"]);
    // The cursor's own entry and one before it go, and a sooner one comes: none moves the next page.
    await entries.deleteList("10.0.2.2", "deny");
    await entries.deleteList("10.0.2.1", "deny");
    await entries.setList("10.0.3.1", "deny", 30_000);
    next = await read(next!);
    await entries.deleteList("10.0.1.9", "allow");
    await entries.setList("10.0.1.0", "allow");
    while (next !== null) next = await read(next);
    expect(seen).toEqual([
      "deny:10.0.2.1",
      "deny:10.0.2.2",
      "deny:10.0.2.3",
      "allow:10.0.1.9",
      "deny:10.0.1.1",
      "deny:10.0.1.10",
      "deny:10.0.1.2",
      "deny:10.0.1.3",
      "deny:key:ab",
    ]);
  });

  it("Should drop an entry from the index when it is removed, but not when the other list is named", async () => {
    const { before: entries } = setup();
    await entries.setList("10.0.0.4", "deny");
    expect(await entries.deleteList("10.0.0.4", "allow")).toBe(false);
    expect((await entries.listEntries(undefined, 10)).entries).toMatchObject([{ client: "10.0.0.4", kind: "deny" }]);
    expect(await entries.deleteList("10.0.0.4", "deny")).toBe(true);
    expect(await entries.listEntries(undefined, 10)).toEqual({ entries: [], next: null });
  });

  it("Should skip entries that expired between two pages, after the cursor as well as before it", async () => {
    const { before: entries } = setup();
    // Times long enough for the first page to be read before any expires, on a loaded machine.
    await entries.setList("10.0.0.5", "deny", 1_000);
    await entries.setList("10.0.0.6", "deny", 1_200);
    await entries.setList("10.0.0.7", "deny", 60_000);
    const first = await entries.listEntries(undefined, 1);
    expect(first.entries).toMatchObject([{ client: "10.0.0.5" }]);
    await sleep(1_500);
    expect((await entries.listEntries(first.next!, 10)).entries).toMatchObject([{ client: "10.0.0.7" }]);
    expect((await entries.listEntries(undefined, 10)).entries).toMatchObject([{ client: "10.0.0.7" }]);
  });

  it("Should drop expired entries from the index at the next write, so that it does not grow with entries long gone", async () => {
    const { prefix, before: entries } = setup();
    await entries.setList("10.0.0.8", "deny", 30);
    await sleep(60);
    await entries.setList("10.0.0.9", "allow");
    expect(await h.redis.zrange(`${prefix}:list-index`, 0, -1)).toEqual(["allow:10.0.0.9"]);
  });
});

describe("copying entries to a multi-key route added after they were written", () => {
  it("Should deny on the new route once copied, for the entry's time left, and copy nothing twice", async () => {
    const { prefix, before, after, decide } = setup();
    await before.setList("key:spent", "deny", 60_000);
    expect(await decide("10.0.0.5", "key:spent")).toMatchObject({ allowed: true });
    expect(await after.copyEntry("key:spent")).toBe(1);
    expect(await decide("10.0.0.5", "key:spent")).toMatchObject({ allowed: false, reason: "deny-list" });
    const ttl = await h.redis.pttl(`${prefix}:list:{route:api}:key:spent`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await after.copyEntry("key:spent")).toBe(0);
    expect(await after.copyEntry("10.0.0.99")).toBe(0);
  });

  it("Should leave no copy of an entry removed while its copy was being written", async () => {
    const { prefix, after, decide } = setup(
      racing(async (operator) => {
        await operator.deleteList("10.0.0.6", "deny");
      }),
    );
    await createClientEntries(h.runner, prefix, []).setList("10.0.0.6", "deny");
    expect(await after.copyEntry("10.0.0.6")).toBe(0);
    expect(await h.keys(prefix)).toEqual([`${prefix}:list-copy-routes`]);
    expect(await decide("10.0.0.6")).toMatchObject({ allowed: true, rules: [{ remaining: 4 }, { remaining: 4 }] });
  });

  it("Should keep the operator's new entry when it replaced the one being copied", async () => {
    const { prefix, after, decide } = setup(
      racing(async (operator) => {
        await operator.setList("10.0.0.7", "allow");
      }),
    );
    await createClientEntries(h.runner, prefix, []).setList("10.0.0.7", "deny");
    expect(await after.copyEntry("10.0.0.7")).toBe(0);
    expect(await decide("10.0.0.7")).toMatchObject({ allowed: true, reason: "allow-list" });
  });

  it("Should remove the copy on a route that lost its per-rule keys, so that the route does not apply it again if it regains them", async () => {
    const { before, after, decide } = setup();
    await after.setList("10.0.0.8", "allow");
    await after.setList("10.0.0.9", "deny");
    // Redeployed without per-rule keys (the route is not multi-key: its entries now write no copy), then:
    await before.setList("10.0.0.8", "deny");
    await before.deleteList("10.0.0.9", "deny");
    // Redeployed with them again, and the copies written as the README says.
    for (const { client } of (await after.listEntries(undefined, 10)).entries) await after.copyEntry(client);
    expect(await decide("10.0.0.8")).toMatchObject({ allowed: false, reason: "deny-list" });
    expect(await decide("10.0.0.9")).toMatchObject({ allowed: true, rules: [{ remaining: 4 }, { remaining: 4 }] });
  });

  it("Should treat an entry in its last millisecond (PTTL 0) as gone, where copying its TTL would be a SET … PX 0 that Redis refuses", async () => {
    // Redis keeps a key until its time has passed, so PTTL answers 0 for one whose time is now.
    const runner: ScriptRunner = {
      evalsha: async (sha1, keys, args) => {
        const reply = await h.runner.evalsha(sha1, keys, args);
        return sha1 === readEntry.sha1 && (reply as [string, number])[0] !== "" ? [(reply as [string, number])[0], 0] : reply;
      },
      eval: (script, keys, args) => h.runner.eval(script, keys, args),
    };
    const { prefix, before, after } = setup(runner);
    await before.setList("10.0.0.11", "deny", 60_000);
    expect(await after.copyEntry("10.0.0.11")).toBe(0);
    expect(await after.readList("10.0.0.11")).toBeUndefined();
    expect(await h.keys(prefix)).not.toContain(`${prefix}:list:{route:api}:10.0.0.11`);
  });

  it("Should record the route before writing its first copy, and try again after the record failed", async () => {
    let failures = 1;
    const runner: ScriptRunner = {
      evalsha: async (sha1, keys, args) => {
        if (sha1 === recordCopyRoutes.sha1 && failures-- > 0) throw new Error("Redis EVALSHA failed with 502");
        return h.runner.evalsha(sha1, keys, args);
      },
      eval: (script, keys, args) => h.runner.eval(script, keys, args),
    };
    const { prefix, before, after } = setup(runner);
    await before.setList("10.0.0.10", "deny");
    await expect(after.copyEntry("10.0.0.10")).rejects.toThrow("502");
    expect(await h.keys(prefix)).not.toContain(`${prefix}:list:{route:api}:10.0.0.10`);
    expect(await after.copyEntry("10.0.0.10")).toBe(1);
    expect(await h.redis.smembers(`${prefix}:list-copy-routes`)).toEqual(["api"]);
  });

  /**
   * A runner whose first missing-copy write waits for `operator` (the admin API of another isolate,
   * on the same prefix) to act on the entry: the race a copy must survive.
   */
  function racing(act: (operator: ReturnType<typeof createClientEntries>) => Promise<void>): ScriptRunner {
    let raced = false;
    return {
      evalsha: async (sha1, keys, args) => {
        if (sha1 === setEntryIfAbsent.sha1 && !raced) {
          raced = true;
          const prefix = keys[0]!.slice(0, keys[0]!.indexOf(":"));
          await act(createClientEntries(h.runner, prefix, ["api"]));
        }
        return h.runner.evalsha(sha1, keys, args);
      },
      eval: (script, keys, args) => h.runner.eval(script, keys, args),
    };
  }
});
