import { Redis as Upstash } from "@upstash/redis";
import { once } from "node:events";
import { Cluster, Command as IoCommand, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedisCluster, type RedisCluster } from "../../../scripts/local/redis-cluster.ts";
import { keySlot, readyMaster } from "../../../scripts/upstash-shim/cluster.ts";
import { startShim } from "../../../scripts/upstash-shim/index.ts";
import { algorithmNames, createClientEntries } from "../../../src/limiter/index.ts";
import type { Rule } from "../../../src/limiter/types.ts";
import { DECISIONS, hammer, startHarness, T0, TOKEN, type Harness } from "./harness.ts";

let cluster: RedisCluster | undefined;
let h: Harness | undefined;
let masters: Redis[] = [];
beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 });
  masters = cluster.nodes.map((node) => new Redis(node.url));
  h = await startHarness({ redisUrl: cluster.seedUrl, cluster: true });
}, 60_000);
afterAll(async () => {
  // Each step runs even when an earlier one (or beforeAll) failed: nothing is left running.
  await Promise.allSettled([h?.close(), ...masters.map(async (master) => master.disconnect())]);
  await cluster?.stop();
});

const harness = () => h!;
/** One request to the shim; status and parsed body. */
async function call(path: string, body: unknown) {
  const res = await fetch(`${harness().shim.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}
const CROSSSLOT = "CROSSSLOT Keys in request don't hash to the same slot";

const routes: Array<[string, Rule[]]> = [
  ...algorithmNames.map((algorithm): [string, Rule[]] => [algorithm, [{ name: "default", algorithm, limit: 100, windowMs: 60_000 }]]),
  [`a route with all ${algorithmNames.length} algorithms`, algorithmNames.map((algorithm) => ({ name: algorithm, algorithm, limit: 100, windowMs: 60_000 }))],
];

describe("1,000 concurrent decisions for one client through the shim on a three-master Redis Cluster, limit 100", () => {
  for (const [label, rules] of routes) {
    it(`allow exactly 100 with ${label}`, async () => {
      const allowed = await hammer(harness().limiter(rules));
      console.log(`cluster: ${label}: ${allowed} of ${DECISIONS} admitted`);
      expect(allowed).toBe(100);
    }, 60_000);
  }
});

describe("the keys of many clients on a three-master Redis Cluster", () => {
  const CLIENTS = 300;
  let prefix = "";

  it(`spread over every master after ${CLIENTS} clients`, async () => {
    const limiter = harness().limiter([{ name: "default", algorithm: "fixed-window", limit: 10, windowMs: 60_000 }]);
    prefix = limiter.prefix;
    for (let i = 0; i < CLIENTS; i += 50) {
      const batch = Array.from({ length: 50 }, (_, j) => limiter.limit({ client: `client-${i + j}`, scope: "", now: T0 }));
      expect((await Promise.all(batch)).every((decision) => decision.allowed)).toBe(true);
    }
    const perMaster = await Promise.all(masters.map(async (master) => (await master.keys(`${prefix}:*`)).length));
    console.log(`cluster: keys of ${CLIENTS} clients per master: ${perMaster.join(", ")}`);
    expect(perMaster.every((count) => count > 0)).toBe(true);
    expect(perMaster.reduce((a, b) => a + b)).toBe(CLIENTS);
  });

  it("Should let @upstash/redis see every key through KEYS and SCAN, with DBSIZE the sum over the masters", async () => {
    const redis = new Upstash({ url: harness().shim.url, token: TOKEN, enableAutoPipelining: false, retry: { retries: 0 } });
    expect((await redis.keys(`${prefix}:*`)).length).toBe(CLIENTS);
    const scanned = new Set<string>();
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, { match: `${prefix}:*`, count: 100 });
      cursor = String(next);
      for (const key of keys) scanned.add(key);
    } while (cursor !== "0");
    expect(scanned.size).toBe(CLIENTS);
    const sizes = await Promise.all(masters.map((master) => master.dbsize()));
    expect(await redis.dbsize()).toBe(sizes.reduce((a, b) => a + b));
  });
});

describe("a route whose rules count different clients, on a three-master Redis Cluster", () => {
  const rules: Rule[] = [
    { name: "per-ip", algorithm: "sliding-window", limit: 1_000, windowMs: 60_000 },
    { name: "per-key", algorithm: "fixed-window", limit: 100, windowMs: 86_400_000 },
  ];

  it("Should decide every request in one script without CROSSSLOT, admitting exactly 100 for one key spread over 50 addresses", async () => {
    const limiter = harness().limiter(rules);
    const decisions = [];
    for (let i = 0; i < 300; i += 50) {
      const batch = Array.from({ length: 50 }, (_, j) =>
        limiter.limit({ client: `10.0.0.${j}`, clients: [`10.0.0.${j}`, "key:shared"], scope: "api", now: T0 }),
      );
      decisions.push(...(await Promise.all(batch)));
    }
    console.log(`cluster: one key over 50 addresses: ${decisions.filter((decision) => decision.allowed).length} of 300 admitted`);
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(100);
    expect(decisions.filter((decision) => !decision.allowed).every((decision) => decision.rule === "per-key")).toBe(true);
  }, 60_000);

  it("Should write a list entry to the client's slot and the route's, and the route's script then deny it", async () => {
    const limiter = harness().limiter(rules);
    const entries = createClientEntries(harness().runner, limiter.prefix, ["api"]);
    await entries.setList("key:banned", "deny");
    expect(await limiter.limit({ client: "10.9.9.9", clients: ["10.9.9.9", "key:banned"], scope: "api", now: T0 })).toMatchObject({
      allowed: false,
      reason: "deny-list",
    });
    expect(await entries.deleteList("key:banned", "deny")).toBe(true);
  });

  it("Should list entries from the index in its own slot, and copy one to a route deployed after it", async () => {
    const limiter = harness().limiter(rules);
    await createClientEntries(harness().runner, limiter.prefix, []).setList("key:early", "deny", 60_000);
    const entries = createClientEntries(harness().runner, limiter.prefix, ["api"]);
    expect((await entries.listEntries(undefined, 10)).entries).toMatchObject([{ client: "key:early", kind: "deny" }]);
    expect(await entries.copyEntry("key:early")).toBe(1);
    expect(await limiter.limit({ client: "10.9.9.8", clients: ["10.9.9.8", "key:early"], scope: "api", now: T0 })).toMatchObject({
      reason: "deny-list",
    });
  });
});

describe("the shim's answers on a Redis Cluster", () => {
  it("Should answer a command whose keys span slots with Redis's CROSSSLOT error as a 400", async () => {
    expect(await call("/", ["MSET", "{a}k", "1", "{b}k", "2"])).toEqual({ status: 400, body: { error: CROSSSLOT } });
  });

  it("Should refuse a transaction whose keys span slots with CROSSSLOT, and run one whose keys share a slot", async () => {
    expect(
      await call("/multi-exec", [
        ["SET", "{tx-a}k", "1"],
        ["SET", "{tx-b}k", "2"],
      ]),
    ).toEqual({ status: 400, body: { error: CROSSSLOT } });
    expect(
      await call("/multi-exec", [
        ["SET", "{tx-a}k", "1"],
        ["INCR", "{tx-a}k"],
        ["GET", "{tx-a}n"],
      ]),
    ).toEqual({
      status: 200,
      body: [{ result: "OK" }, { result: 2 }, { result: null }],
    });
  });

  it("Should keep a transaction whole when its master's connection is still in its handshake", async () => {
    const seed = new URL(cluster!.seedUrl);
    const client = new Cluster([{ host: seed.hostname, port: Number(seed.port) }], { lazyConnect: true });
    try {
      await client.connect();
      // A master ioredis has not connected yet: connecting, it answers the ready check last.
      const node = client.nodes("master").find((master) => master.status === "wait")!;
      const owner = `${node.options.host}:${node.options.port}`;
      const slot = client.slots.findIndex((nodes) => nodes?.[0] === owner);
      let i = 0;
      while (keySlot(`hs-${i}`) !== slot) i++;
      void node.connect().catch(() => {});
      await once(node, "connect");
      const master = await readyMaster(client, slot);
      const send = (name: string, ...args: string[]) => master.sendCommand(new IoCommand(name, args));
      const replies = await Promise.all([send("MULTI"), send("SET", `hs-${i}`, "1"), send("INCR", `hs-${i}`), send("EXEC")]);
      expect(String(replies.at(-1))).toBe("OK,2");
    } finally {
      client.disconnect();
    }
  });

  it("Should run a transaction on any master's slots from the first request, not only once a MOVED taught it the owner", async () => {
    // A fresh shim: the one above may have learned owners from redirections already.
    const shim = await startShim({ redisUrl: cluster!.seedUrl, token: TOKEN, port: 0, cluster: true });
    try {
      const ranges = (await masters[0]!.cluster("SLOTS")) as Array<[number, number, ...unknown[]]>;
      expect(ranges).toHaveLength(3);
      for (const [start, end] of ranges) {
        let i = 0;
        while (keySlot(`tx-${i}`) < start || keySlot(`tx-${i}`) > end) i++;
        const res = await fetch(`${shim.url}/multi-exec`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}` },
          body: JSON.stringify([
            ["SET", `tx-${i}`, "1"],
            ["INCR", `tx-${i}`],
          ]),
        });
        expect({ slots: `${start}-${end}`, status: res.status, body: await res.json() }).toEqual({
          slots: `${start}-${end}`,
          status: 200,
          body: [{ result: "OK" }, { result: 2 }],
        });
      }
    } finally {
      await shim.close();
    }
  });

  it("Should run a pipeline across slots command by command on each key's master, with one result per command in order", async () => {
    const pipeline = [
      ["SET", "{p-a}k", "1"],
      ["SET", "{p-b}k", "x"],
      ["INCR", "{p-a}k"],
      ["INCR", "{p-b}k"],
      ["PING"],
      ["GET", "{p-a}k"],
      ["MGET", "{p-a}k", "{p-b}k"],
    ];
    expect(await call("/pipeline", pipeline)).toEqual({
      status: 200,
      body: [
        { result: "OK" },
        { result: "OK" },
        { result: 2 },
        { error: "ERR value is not an integer or out of range" },
        { result: "PONG" },
        { result: "2" },
        { error: CROSSSLOT },
      ],
    });
  });

  it("Should refuse a transaction holding a whole-database command, which one transaction could only run on one master", async () => {
    await call("/", ["SET", "{tx-flush}k", "1"]);
    expect(await call("/multi-exec", [["SET", "{tx-flush}k", "2"], ["FLUSHDB"]])).toEqual({
      status: 400,
      body: { error: "ERR FLUSHDB acts on every master of the cluster, which one transaction cannot: send it outside /multi-exec" },
    });
    expect(await call("/multi-exec", [["DBSIZE"]])).toMatchObject({ status: 400 });
    expect(await call("/", ["GET", "{tx-flush}k"])).toEqual({ status: 200, body: { result: "1" } });
  });

  it("Should load a script on every master, so EVALSHA finds it wherever its key lands", async () => {
    const loaded = await call("/", ["SCRIPT", "LOAD", "return redis.call('INCR', KEYS[1])"]);
    const sha = (loaded.body as { result: string }).result;
    expect(await Promise.all(masters.map((master) => master.script("EXISTS", sha)))).toEqual(masters.map(() => [1]));
    expect(await call("/", ["SCRIPT", "EXISTS", sha, "0".repeat(40)])).toEqual({ status: 200, body: { result: [1, 0] } });
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => call("/", ["EVALSHA", sha, 1, `{script-${i}}n`])));
    expect(replies).toEqual(replies.map(() => ({ status: 200, body: { result: 1 } })));
  });
});

// Last in this file: it stops a master of the shared cluster.
describe("a Redis Cluster with a master down", () => {
  it("Should answer DBSIZE, KEYS, SCAN and FLUSHDB with 503, never the live masters' part as the whole", async () => {
    for (let i = 0; i < 30; i++) await call("/", ["SET", `down-${i}`, "1"]);
    await cluster!.nodes[2]!.stop();
    const unavailable = { status: 503, body: { error: expect.stringMatching(/^ERR Redis is unreachable: /) } };
    // ioredis notices the closed connection on its own time; a partial count never turns into a 503.
    const deadline = Date.now() + 10_000;
    while ((await call("/", ["DBSIZE"])).status !== 503 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    for (const command of [["DBSIZE"], ["KEYS", "*"], ["SCAN", "0"], ["FLUSHDB"]]) expect(await call("/", command), command[0]).toMatchObject(unavailable);
    // FLUSHDB flushed no master: it ran nowhere rather than on the live ones.
    expect(await masters[0]!.dbsize()).toBeGreaterThan(0);
  }, 30_000);
});
