import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { RedisConnection, RedisUnavailableError } from "./redis-connection.ts";

/** The commands in a RESP stream of simple arrays of bulk strings, one name per command. */
function commandNames(text: string): string[] {
  const lines = text.split("\r\n");
  const names: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith("*")) continue;
    names.push(lines[i + 2]!.toUpperCase());
    i += 2 * Number(lines[i]!.slice(1));
  }
  return names;
}

let server: Server | undefined;
let connection: RedisConnection | undefined;
const accepted: Socket[] = [];
afterEach(async () => {
  connection?.close();
  // close() waits for the connections it accepted: end them from this side too.
  for (const socket of accepted.splice(0)) socket.destroy();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
});

/**
 * A Redis that answers the shim's handshake, then takes commands and answers none of them; or,
 * with `answerAfterMs`, answers each (a nil) that long after it came.
 */
async function stallingRedis(answerAfterMs?: number, info = "redis_version:7.2.0\r\n"): Promise<{ url: string; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  server = createServer((socket) => {
    sockets.push(socket);
    accepted.push(socket);
    socket.on("data", (chunk) => {
      for (const name of commandNames(chunk.toString("latin1"))) {
        if (name === "CLIENT") socket.write("+OK\r\n");
        else if (name === "INFO") socket.write(`$${info.length}\r\n${info}\r\n`);
        else if (answerAfterMs !== undefined) setTimeout(() => socket.write("$-1\r\n"), answerAfterMs);
      }
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`, sockets };
}

/** A Redis that accepts connections and answers nothing at all, as a stopped (SIGSTOP) one does. */
async function silentRedis(): Promise<{ url: string; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  server = createServer((socket) => {
    sockets.push(socket);
    accepted.push(socket);
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`, sockets };
}

describe("the shim's connection to Redis", () => {
  it("Should fail the commands waiting on a Redis that stopped answering, and reconnect, rather than hold them for good", async () => {
    const redis = await stallingRedis();
    connection = new RedisConnection(redis.url, { name: "test", retryDelayMs: () => 10, replyTimeoutMs: 200 });
    await connection.ready;
    expect(connection.isReady).toBe(true);
    const outcome = await connection.send({ name: "GET", args: ["k"] }).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(RedisUnavailableError);
    expect((outcome as Error).message).toBe("ERR Redis is unreachable: Redis answered nothing for 200 ms while commands waited");
    await expect.poll(() => redis.sockets.length).toBe(2);
  });

  it("Should drop a Redis that stopped answering even while new commands keep being written to it", async () => {
    const redis = await stallingRedis();
    connection = new RedisConnection(redis.url, { name: "test", retryDelayMs: () => 10, replyTimeoutMs: 200 });
    await connection.ready;
    const first = connection.send({ name: "GET", args: ["k"] }).catch((error: unknown) => error);
    // A command every 50 ms: a timer that any write restarts would never fire.
    const traffic = setInterval(() => connection?.isReady && connection.send({ name: "GET", args: ["k"] }).catch(() => {}), 50);
    try {
      expect(await first).toBeInstanceOf(RedisUnavailableError);
    } finally {
      clearInterval(traffic);
    }
  });

  it("Should give up a handshake that gets no answer and try again, leaving no rejection unhandled (Node would exit on one)", async () => {
    const redis = await silentRedis();
    connection = new RedisConnection(redis.url, { name: "test", retryDelayMs: () => 10, connectTimeoutMs: 100 });
    await connection.ready;
    expect(connection.isReady).toBe(false);
    await expect.poll(() => redis.sockets.length).toBeGreaterThan(2);
    await expect(connection.send({ name: "PING", args: [] })).rejects.toThrow("ERR Redis is unreachable: connect ETIMEDOUT");
  });

  it("Should keep a Redis that always owes replies but keeps sending them, however long the traffic lasts", async () => {
    const redis = await stallingRedis(30);
    connection = new RedisConnection(redis.url, { name: "test", retryDelayMs: () => 10, replyTimeoutMs: 500 });
    await connection.ready;
    const sent: Array<Promise<unknown>> = [];
    // A command every 10 ms, each answered 30 ms later: for three timeouts, some command always waits.
    const traffic = setInterval(() => sent.push(connection!.send({ name: "GET", args: ["k"] }).catch((error: unknown) => error)), 10);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    clearInterval(traffic);
    const outcomes = await Promise.all(sent);
    expect(outcomes.filter((outcome) => outcome !== null)).toEqual([]);
    expect(redis.sockets).toHaveLength(1);
  });

  it("Should not serve through a Redis still loading its dataset, failing commands as unreachable until it is done", async () => {
    const redis = await stallingRedis(undefined, "loading:1\r\nredis_version:7.2.0\r\n");
    connection = new RedisConnection(redis.url, { name: "test", retryDelayMs: () => 10 });
    await connection.ready;
    expect(connection.isReady).toBe(false);
    await expect(connection.send({ name: "PING", args: [] })).rejects.toThrow("ERR Redis is unreachable: Redis is loading its dataset");
  });

  it("Should keep an idle connection, on which no command waits, however long nothing is said, past the connect timeout too", async () => {
    const redis = await stallingRedis();
    connection = new RedisConnection(redis.url, { name: "test", retryDelayMs: () => 10, replyTimeoutMs: 50, connectTimeoutMs: 100 });
    await connection.ready;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([connection.isReady, redis.sockets.length]).toEqual([true, 1]);
  });
});
