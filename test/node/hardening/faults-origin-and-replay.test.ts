import { createServer, request, type Server } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { Redis as UpstashRedis } from "@upstash/redis";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOrigin, type Origin } from "../../../scripts/local/origin.ts";
import { startRedisServer, type RedisServer } from "../../../scripts/local/redis-server.ts";
import { startShim, type Shim } from "../../../scripts/upstash-shim/index.ts";
import { startTcpRelay, type TcpRelay } from "../../../scripts/local/tcp-relay.ts";
import { removeBundle, serveWorker, visit, type ServedWorker } from "./worker-process.ts";

// The Worker (workerd) talks to the shim through a TCP proxy that counts requests in flight and
// can drop a connection after the shim answered. Three origins misbehave on their own routes.
const TOKEN = "replay-token-91fa";
const PREFIX = "replay";
const ORIGIN_TIMEOUT_MS = 300;
const LIMIT = 50;

let redis: RedisServer;
let direct: Redis;
let shim: Shim;
let proxy: TcpRelay;
let origin: Origin;
let slow: Server;
let slowUrl: string;
let resetting: TcpServer;
let resetUrl: string;
let worker: ServedWorker;
let originCalls = { slow: 0, redisInFlight: [] as number[] };

const listen = async <T extends Server | TcpServer>(server: T) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
};

beforeAll(async () => {
  redis = await startRedisServer();
  direct = new Redis(redis.url);
  shim = await startShim({ redisUrl: redis.url, token: TOKEN, port: 0 });
  proxy = await startTcpRelay(shim.url);
  origin = await startOrigin();
  // Slower than ORIGIN_TIMEOUT_MS; records how many Redis calls were open while it was asked.
  slow = createServer((_, res) => {
    originCalls.slow++;
    originCalls.redisInFlight.push(proxy.inFlight());
    setTimeout(() => res.end("too late"), 3000).unref();
  });
  slowUrl = await listen(slow);
  // Accepts the connection, then resets it: an origin refusing to talk.
  resetting = createTcpServer((socket) => socket.resetAndDestroy());
  resetUrl = await listen(resetting);
  const rules = `${LIMIT}/60s`;
  worker = await serveWorker({
    UPSTASH_REDIS_REST_URL: proxy.url,
    UPSTASH_REDIS_REST_TOKEN: TOKEN,
    ORIGIN_URL: origin.url,
    RATE_LIMIT: rules,
    FAILURE_MODE: "open",
    KEY_PREFIX: PREFIX,
    ORIGIN_TIMEOUT_MS: String(ORIGIN_TIMEOUT_MS),
    ROUTES: JSON.stringify([
      { pattern: "*/down/*", name: "down", origin: "http://127.0.0.1:1", rules },
      { pattern: "*/reset/*", name: "reset", origin: resetUrl, rules },
      { pattern: "*/slow/*", name: "slow", origin: slowUrl, rules },
    ]),
  });
}, 60_000);
afterAll(async () => {
  await worker?.dispose();
  await removeBundle();
  slow?.closeAllConnections();
  await new Promise((resolve) => slow?.close(resolve));
  await new Promise((resolve) => resetting?.close(resolve));
  await origin?.close();
  await proxy?.close();
  await shim?.close();
  direct?.disconnect();
  await redis?.stop();
});

/** The sum of every counter the fixed-window script keeps for `client` on route `scope`. */
async function counted(client: string, scope?: string): Promise<number> {
  const base = `${PREFIX}:fixed:{${client}}${scope ? `:${scope}` : ""}:`;
  const keys = (await direct.keys(`${base}*`)).filter((key) => /^\d+$/.test(key.slice(base.length)));
  const values = keys.length ? await direct.mget(keys) : [];
  return values.reduce((sum, value) => sum + Number(value), 0);
}
const remaining = (headers: Headers) => Number(/;r=(\d+)/.exec(headers.get("ratelimit") ?? "")?.[1]);

describe("the origin down, refusing, or slower than ORIGIN_TIMEOUT_MS", () => {
  const cases = [
    ["down (nothing listens)", "down", 502, "Bad Gateway: The origin could not be reached."],
    ["refusing (connection reset)", "reset", 502, "Bad Gateway: The origin could not be reached."],
    ["slower than its timeout", "slow", 504, "Gateway Timeout: The origin did not answer within the timeout (ORIGIN_TIMEOUT_MS)."],
  ] as const;

  it.each(cases)(
    "Should answer a clear %s error, count each request exactly once, and go on deciding correctly",
    async (_, route, status, body) => {
      const client = `203.0.113.${cases.findIndex((c) => c[1] === route) + 10}`;
      for (let i = 0; i < 3; i++) {
        const answer = await visit(worker, `/${route}/x`, client);
        expect({ status: answer.status, body: answer.body }).toEqual({ status, body });
        if (status === 504) expect(answer.ms).toBeLessThan(ORIGIN_TIMEOUT_MS + 1500);
      }
      expect(await counted(client, route)).toBe(3);
      // The state is intact: the next request on a working route is counted on top, as usual.
      const fine = await visit(worker, "/fine", client);
      expect(fine.status).toBe(200);
      expect(remaining(fine.headers)).toBe(LIMIT - 1);
      expect(await counted(client, route)).toBe(3);
      expect(await counted(client)).toBe(1);
    },
    30_000,
  );

  it("Should hold no Redis request open while it waits for a slow origin", async () => {
    originCalls = { slow: 0, redisInFlight: [] };
    await Promise.all([1, 2, 3, 4].map((n) => visit(worker, "/slow/y", `203.0.113.${20 + n}`)));
    expect(originCalls.slow).toBe(4);
    // When the last of the four reaches the origin, all four have their decision and wait on the
    // origin alone: not one Redis request is open.
    expect(originCalls.redisInFlight.at(-1)).toBe(0);
  }, 30_000);
});

describe("an upload sent with Expect: 100-continue", () => {
  // curl sends it with every body over 1 MB. Forwarded, it made workerd's fetch resolve to the
  // origin's interim 100, which no Response can carry: every such upload was a 502.
  it("Should reach the origin whole and answer the origin's final status", async () => {
    const body = "x".repeat(100_000);
    const { hostname, port } = new URL(worker.url);
    const answer = await new Promise<{ status?: number; text: string }>((resolve, reject) => {
      const headers = { "cf-connecting-ip": "203.0.113.60", expect: "100-continue", "content-length": String(body.length) };
      const req = request({ host: hostname, port, method: "POST", path: "/upload", headers }, (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode, text })).on("error", reject);
      });
      // Sent at once, as RFC 9110 §10.1.1 allows (curl waits a second for the 100, then sends).
      req.on("error", reject).end(body);
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ method: "POST", url: "/upload", body });
  }, 30_000);
});

describe("a connection dropped after Redis ran the script", () => {
  it("Should never run the script a second time: the request is counted exactly once, and the Worker follows FAILURE_MODE", async () => {
    const client = "203.0.113.99";
    // Warm the script cache first, so that the dropped call is the EVALSHA that runs the script.
    expect((await visit(worker, "/warm", "203.0.113.98")).status).toBe(200);
    const before = shim.stats.requests;
    proxy.dropNextAnswer();
    const answer = await visit(worker, "/once", client);
    expect(proxy.dropped()).toBe(1);
    expect({ status: answer.status, limited: answer.headers.has("ratelimit") }).toEqual({ status: 200, limited: false });
    expect(shim.stats.requests - before).toBe(1);
    expect(await counted(client)).toBe(1);
    expect(worker.output()).toMatch(/"event":"redis-failure".*"kind":"network"/);

    const next = await visit(worker, "/again", client);
    expect(remaining(next.headers)).toBe(LIMIT - 2);
    expect(await counted(client)).toBe(2);
  }, 30_000);

  it("Should not replay a call that timed out either: the late script run is the only one", async () => {
    const client = "203.0.113.97";
    const before = shim.stats.requests;
    shim.faults.set({ delayMs: 1500 });
    try {
      const answer = await visit(worker, "/late", client);
      expect({ status: answer.status, limited: answer.headers.has("ratelimit") }).toEqual({ status: 200, limited: false });
      expect(worker.output()).toMatch(/"event":"redis-failure".*"kind":"timeout"/);
    } finally {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      shim.faults.clear();
    }
    expect(shim.stats.requests - before).toBe(1);
    expect(await counted(client)).toBe(1);
  }, 30_000);

  it("Should never print the token, whatever failed", () => {
    expect(worker.output()).toMatch(/redis-failure/);
    expect(worker.output()).not.toContain(TOKEN);
  });

  it("Should not replay between the shim and Redis either: a reply lost on that connection is a 5xx, and the command ran once", async () => {
    const redisProxy = await startTcpRelay(redis.url.replace("redis:", "http:"));
    const proxied = await startShim({ redisUrl: redisProxy.url.replace("http:", "redis:"), token: TOKEN, port: 0 });
    try {
      const key = `${PREFIX}:shim-hop:${Date.now()}`;
      const incr = () =>
        fetch(`${proxied.url}/`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}` },
          body: JSON.stringify(["EVAL", "return redis.call('INCR', KEYS[1])", 1, key]),
        });
      expect((await incr()).status).toBe(200);
      redisProxy.dropNextAnswer();
      const lost = await incr();
      expect(lost.status).toBeGreaterThanOrEqual(500);
      expect(await lost.json()).toMatchObject({ error: expect.stringMatching(/^ERR Redis is unreachable/) });
      expect(redisProxy.dropped()).toBe(1);
      expect(await direct.get(key)).toBe("2");
    } finally {
      await proxied.close();
      await redisProxy.close();
    }
  }, 30_000);

  it("Should be able to see a replay: @upstash/redis with its default retries applies a dropped INCR twice", async () => {
    const upstash = new UpstashRedis({ url: proxy.url, token: TOKEN, enableTelemetry: false });
    const key = `${PREFIX}:control:${Date.now()}`;
    proxy.dropNextAnswer();
    await upstash.incr(key);
    expect(await direct.get(key)).toBe("2");
  }, 30_000);
});
