// The shim's judge is the official client, unchanged (docs/shim.md): @upstash/redis 1.39.0 with its
// defaults (base64 responses, auto-pipelining, read-your-writes) and @upstash/ratelimit 2.2.0.
import { randomUUID } from "node:crypto";
import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { startShim, type Shim } from "./index.ts";
import { sha1 } from "./scripts.ts";

const TOKEN = randomUUID();
let shim: Shim;
let redis: Redis;
beforeAll(async () => {
  shim = await startShim({ redisUrl: inject("redisUrl"), token: TOKEN, port: 0 });
  redis = new Redis({ url: shim.url, token: TOKEN, enableTelemetry: false });
});
afterAll(() => shim.close());

const key = (name: string) => `contract:${name}:${randomUUID()}`;

describe("@upstash/redis through the shim: data types", () => {
  it("Should set and get strings, numbers, booleans and objects", async () => {
    const [s, n, t, o] = [key("s"), key("n"), key("t"), key("o")];
    await Promise.all([redis.set(s, "hello"), redis.set(n, 42), redis.set(t, true), redis.set(o, { a: [1, "x"] })]);
    expect(await Promise.all([redis.get(s), redis.get(n), redis.get(t), redis.get(o)])).toEqual(["hello", 42, true, { a: [1, "x"] }]);
    expect(await redis.incrbyfloat(n, 1.5)).toBe(43.5);
  });

  it("Should round-trip control characters and non-ASCII text exactly", async () => {
    const k = key("text");
    const value = "nul\u0000 bell\u0007 é 中文 🎉 \uFFFD line\nbreak OK";
    await redis.set(k, value);
    expect(await redis.get(k)).toBe(value);
    expect(await redis.strlen(k)).toBe(Buffer.byteLength(value));
  });

  it("Should keep the OK reply and numeric-looking strings intact inside arrays", async () => {
    const [a, b] = [key("a"), key("b")];
    await redis.mset({ [a]: "OK", [b]: "098e0f0d1448c0a81dafe820f66d460eb09263da" });
    expect(await redis.mget(a, b)).toEqual(["OK", "098e0f0d1448c0a81dafe820f66d460eb09263da"]);
  });

  it("Should read hashes back as objects", async () => {
    const h = key("h");
    await redis.hset(h, { name: "ada", visits: 3 });
    expect(await redis.hgetall(h)).toEqual({ name: "ada", visits: 3 });
    expect(await redis.hincrby(h, "visits", 2)).toBe(5);
  });

  it("Should push and range lists", async () => {
    const l = key("l");
    await redis.rpush(l, "a", "b", "3");
    expect(await redis.lrange(l, 0, -1)).toEqual(["a", "b", 3]);
    expect(await redis.lpop(l)).toBe("a");
  });

  it("Should keep sorted-set scores", async () => {
    const z = key("z");
    await redis.zadd(z, { score: 1.5, member: "m1" }, { score: 99.5, member: "m2" });
    expect(await redis.zrange(z, 0, -1, { withScores: true })).toEqual(["m1", 1.5, "m2", 99.5]);
    expect(await redis.zscore(z, "m2")).toBe(99.5);
  });
});

describe("@upstash/redis through the shim: scripts", () => {
  it("Should evaluate scripts with keys and arguments", async () => {
    const k = key("eval");
    expect(await redis.eval("return redis.call('INCRBY', KEYS[1], ARGV[1])", [k], [7])).toBe(7);
  });

  it("Should load a script, return its SHA1, and run it by digest", async () => {
    const id = randomUUID();
    const script = `return ARGV[1] .. '${id}'`;
    expect(await redis.scriptLoad(script)).toBe(sha1(script));
    expect(await redis.evalsha(sha1(script), [], ["x"])).toBe(`x${id}`);
  });

  it("Should pass NOSCRIPT through so that the client can fall back to EVAL", async () => {
    await expect(redis.evalsha("0".repeat(40), [], [])).rejects.toThrow("NOSCRIPT No matching script. Please use EVAL.");
  });

  it.each([
    ["without a shebang", ""],
    ["with the allow-key-locking shebang", "#!lua flags=allow-key-locking\n"],
  ])("Should run createScript %s, and a following evalsha is a hit", async (_, shebang) => {
    const script = redis.createScript<string>(`${shebang}return ARGV[1] .. '${randomUUID()}'`);
    expect(await script.exec([], ["a"])).toMatch(/^a/);
    expect(await script.evalsha([], ["b"])).toMatch(/^b/);
    expect(await redis.scriptExists(script.sha1)).toEqual([1]);
  });

  it("Should answer SCRIPT LOAD of a shebang script with the digest of the original text", async () => {
    const id = `id-${randomUUID()}`;
    const text = `#!lua flags=allow-key-locking\nreturn '${id}'`;
    expect(await redis.scriptLoad(text)).toBe(sha1(text));
    expect(await redis.evalsha(sha1(text), [], [])).toBe(id);
  });

  it("Should refuse a read-only call of a script whose only flag is allow-key-locking, as Redis 7 refuses a script that may write", async () => {
    const text = `#!lua flags=allow-key-locking\nreturn '${randomUUID()}'`;
    const refusal = "ERR Can not execute a script with write flag using *_ro command.";
    await expect(redis.evalRo(text, [], [])).rejects.toThrow(refusal);
    await expect(redis.evalRo(`#!lua flags=no-writes,allow-key-locking\nreturn 'read'`, [], [])).resolves.toBe("read");
  });

  it.each([
    ["a shebang without a newline", "#!lua flags=allow-key-locking", "ERR Invalid script shebang"],
    ["an engine other than Lua", "#!python flags=allow-key-locking\nreturn 1", "ERR Unexpected engine in script shebang: #!python"],
  ])("Should refuse %s as Redis does, with its flag taken out", async (_, text, error) => {
    await expect(redis.eval(text, [], [])).rejects.toThrow(error);
  });

  it("Should name the digest of the script the client sent in a shebang script's error, by EVAL and by EVALSHA", async () => {
    const text = `#!lua flags=allow-key-locking\nreturn redis.call('GET', KEYS[1]).x -- ${randomUUID()}`;
    await expect(redis.eval(text, [key("e")], [])).rejects.toThrow(`script: ${sha1(text)},`);
    await expect(redis.evalsha(sha1(text), [key("e")], [])).rejects.toThrow(`script: ${sha1(text)},`);
  });
});

describe("@upstash/redis through the shim: pipelines, transactions, errors", () => {
  it("Should return an explicit pipeline's error in the middle with keepErrors", async () => {
    const k = key("p");
    const p = redis.pipeline();
    p.set(k, "v");
    p.incr(k);
    p.get(k);
    const results = await p.exec({ keepErrors: true });
    expect(results).toEqual([
      { result: "OK", error: undefined },
      { result: undefined, error: "ERR value is not an integer or out of range" },
      { result: "v", error: undefined },
    ]);
  });

  it("Should throw for an explicit pipeline's error without keepErrors", async () => {
    const p = redis.pipeline();
    p.set(key("p"), "v");
    p.evalsha("0".repeat(40), [], []);
    await expect(p.exec()).rejects.toThrow("Command 2 [ evalsha ] failed: NOSCRIPT No matching script. Please use EVAL.");
  });

  it("Should apply a multi() whose middle command fails at runtime, and report that failure", async () => {
    const k = key("tx");
    const tx = redis.multi();
    tx.set(k, "x");
    tx.incr(k);
    tx.set(`${k}:after`, "y");
    await expect(tx.exec()).rejects.toThrow("Command 2 [ incr ] failed: ERR value is not an integer or out of range");
    expect(await redis.mget(k, `${k}:after`)).toEqual(["x", "y"]);
  });

  it("Should run a successful multi() atomically", async () => {
    const k = key("tx");
    const tx = redis.multi();
    tx.incr(k);
    tx.incr(k);
    expect(await tx.exec()).toEqual([1, 2]);
  });

  it("Should give the client a new read-your-writes token after every request", async () => {
    const client = new Redis({ url: shim.url, token: TOKEN, enableTelemetry: false, enableAutoPipelining: false });
    const seen = new Set<string | undefined>();
    for (let i = 0; i < 3; i++) {
      await client.set(key("ryw"), i);
      seen.add(client.readYourWritesSyncToken);
    }
    expect(seen.size).toBe(3);
    expect([...seen].every((token) => typeof token === "string" && token.length > 0)).toBe(true);
  });

  it("Should throw when the token is wrong", async () => {
    const intruder = new Redis({ url: shim.url, token: "wrong", enableTelemetry: false });
    await expect(intruder.get("x")).rejects.toThrow("Unauthorized");
  });

  it("Should deliver published messages to a subscriber", async () => {
    const channel = key("chan");
    const subscriber = redis.subscribe<{ n: number }>([channel]);
    const received: unknown[] = [];
    subscriber.on("message", ({ message }) => received.push(message));
    try {
      await vi.waitFor(async () => {
        await redis.publish(channel, { n: 1 });
        expect(received[0]).toEqual({ n: 1 });
      });
    } finally {
      await subscriber.unsubscribe();
    }
  });

  it("Should count a subscriber on its channel only until it unsubscribes", async () => {
    const channel = key("left");
    // Not PUBLISH: its write to a departed client's stream would end the stream, hiding a leak.
    const numsub = async () => {
      const res = await fetch(`${shim.url}/`, {
        method: "POST",
        body: JSON.stringify(["PUBSUB", "NUMSUB", channel]),
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      return ((await res.json()) as { result: [string, number] }).result[1];
    };
    const subscriber = redis.subscribe([channel]);
    await vi.waitFor(async () => expect(await numsub()).toBe(1));
    await subscriber.unsubscribe();
    await vi.waitFor(async () => expect(await numsub()).toBe(0), { timeout: 2_000 });
  });
});

describe("@upstash/ratelimit through the shim", () => {
  const limiters = [
    ["fixedWindow", Ratelimit.fixedWindow(5, "1 d")],
    ["slidingWindow", Ratelimit.slidingWindow(5, "1 d")],
    ["tokenBucket", Ratelimit.tokenBucket(1, "1 d", 5)],
  ] as const;

  it.each(limiters)("Should let %s admit exactly 5 of 8 sequential requests", async (_, limiter) => {
    const ratelimit = new Ratelimit({ redis, limiter, prefix: key("rl"), ephemeralCache: false });
    const admitted = [];
    for (let i = 0; i < 8; i++) admitted.push((await ratelimit.limit("client")).success);
    expect(admitted).toEqual([true, true, true, true, true, false, false, false]);
  });

  it.each(limiters)("Should let %s admit exactly 5 of 12 concurrent requests (auto-pipelined)", async (_, limiter) => {
    const ratelimit = new Ratelimit({ redis, limiter, prefix: key("rl"), ephemeralCache: false });
    const results = await Promise.all(Array.from({ length: 12 }, () => ratelimit.limit("client")));
    expect(results.filter((result) => result.success)).toHaveLength(5);
  });
});
