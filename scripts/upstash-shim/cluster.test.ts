import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startRedisCluster, type RedisCluster } from "../local/redis-cluster.ts";
import { CROSSSLOT, keySlot, transactionSlot } from "./cluster.ts";
import { startShim, type Shim } from "./index.ts";

describe("the cluster slot of a key", () => {
  it("Should be CRC16 of the key modulo 16384, as the Redis Cluster specification's examples give", () => {
    expect([keySlot("foo"), keySlot("123456789"), keySlot(Buffer.from("foo"))]).toEqual([12182, 12739, 12182]);
  });

  it("Should be the slot of the first non-empty {hash tag}, so that one client's keys share a slot", () => {
    expect(keySlot("rate:fixed:{203.0.113.7}:api")).toBe(keySlot("203.0.113.7"));
    expect(keySlot("{}foo")).not.toBe(keySlot("foo"));
    expect(keySlot("a{b}{c}")).toBe(keySlot("b"));
  });

  it("Should make a transaction CROSSSLOT only when its keys span slots, EVAL's declared keys included", () => {
    expect(
      transactionSlot([
        { name: "SET", args: ["{u}a", "1"] },
        { name: "EVAL", args: ["return 1", "1", "{u}b"] },
      ]),
    ).toBe(keySlot("u"));
    expect(
      transactionSlot([
        { name: "SET", args: ["{u}a", "1"] },
        { name: "MGET", args: ["{u}a", "{v}a"] },
      ]),
    ).toBe(CROSSSLOT);
    expect(transactionSlot([{ name: "PING", args: [] }])).toBeUndefined();
  });
});

describe("the shim in cluster mode", () => {
  it("Should refuse to start against a Redis that is not in cluster mode, saying so, where every request would fail to refresh slots", async () => {
    const started = startShim({ redisUrl: inject("redisUrl"), cluster: true, token: "cluster-token", port: 0 });
    await expect(started).rejects.toThrow(
      `${inject("redisUrl")} is a Redis without cluster mode (ERR This instance has cluster support disabled): drop --cluster (cluster: true)`,
    );
  });
});

describe("commands too short for their keys, on a three-master Redis Cluster", () => {
  const TOKEN = "cluster-token";
  let cluster: RedisCluster | undefined;
  let shim: Shim | undefined;
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 });
    shim = await startShim({ redisUrl: cluster.seedUrl, cluster: true, token: TOKEN, port: 0 });
  }, 60_000);
  afterAll(async () => {
    await shim?.close();
    await cluster?.stop();
  });

  const call = async (path: string, body: unknown) => {
    const res = await fetch(`${shim!.url}${path}`, { method: "POST", body: JSON.stringify(body), headers: { authorization: `Bearer ${TOKEN}` } });
    return { status: res.status, body: await res.text() };
  };
  const p = `cl:${randomUUID()}:`;

  it.each([
    [["GET"], "ERR wrong number of arguments for 'get' command"],
    [["EVAL", "return 1", "2", `${p}a`], "ERR Number of keys can't be greater than number of args"],
  ])("Should answer %o with Redis's own 400, as a single Redis does", async (command, error) => {
    expect(await call("/", command)).toEqual({ status: 400, body: JSON.stringify({ error }) });
  });

  it.each([" 3", "0x10", "18446744073709551616"])("Should refuse the SCAN cursor %j with Redis's own error, as a single Redis does", async (cursor) => {
    expect(await call("/", ["SCAN", cursor])).toEqual({ status: 400, body: '{"error":"ERR invalid cursor"}' });
  });

  it("Should read a SCAN cursor with a sign as Redis reads it (+0 is 0), not hand it to one master", async () => {
    expect(await call("/", ["SCAN", "+0"])).toEqual(await call("/", ["SCAN", "0"]));
  });

  it("Should report a too-short command inside a pipeline as its own entry and run the others", async () => {
    const res = await call("/pipeline", [["INCR", `${p}ctr1`], ["LPUSH"], ["INCR", `${p}ctr2`]]);
    expect(res).toEqual({
      status: 200,
      body: `[{"result":1},{"error":"ERR wrong number of arguments for 'lpush' command"},{"result":1}]`,
    });
  });

  it("Should discard a transaction holding a too-short command with Redis's EXECABORT, running none of it", async () => {
    const res = await call("/multi-exec", [["INCR", `${p}x`], ["LPUSH"]]);
    expect(res).toEqual({
      status: 400,
      body: `{"error":"EXECABORT Transaction discarded because of previous errors. First error: ERR wrong number of arguments for 'lpush' command"}`,
    });
    expect(await call("/", ["GET", `${p}x`])).toEqual({ status: 200, body: '{"result":null}' });
  });
});
