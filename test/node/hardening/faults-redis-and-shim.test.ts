import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOrigin, type Origin } from "../../../scripts/local/origin.ts";
import { startRedisServer, type RedisServer } from "../../../scripts/local/redis-server.ts";
import { startShim, type Shim } from "../../../scripts/upstash-shim/index.ts";
import { send } from "./processes.ts";
import { removeBundle, serveWorker, visit, type ServedWorker } from "./worker-process.ts";

// Real processes: a redis-server we kill and restart, the shim, the echo origin, and the Worker in
// workerd (Miniflare), once with FAILURE_MODE=open and once with FAILURE_MODE=closed.
const TOKEN = "faults-token-5d2b";
const H = { authorization: `Bearer ${TOKEN}` };
const REDIS_TIMEOUT_MS = 250;
/** Loose on purpose: two cores shared with other test runs. The point is "bounded", not fast. */
const MARGIN_MS = 1500;

let redis: RedisServer;
let redisPort: number;
let shim: Shim;
let shimPort: number;
let origin: Origin;
const workers: Record<"open" | "closed", ServedWorker> = {} as never;

const startOurShim = (port: number) => startShim({ redisUrl: `redis://127.0.0.1:${redisPort}`, token: TOKEN, port });

beforeAll(async () => {
  redis = await startRedisServer();
  redisPort = Number(new URL(redis.url).port);
  shim = await startOurShim(0);
  shimPort = Number(new URL(shim.url).port);
  origin = await startOrigin();
  for (const mode of ["open", "closed"] as const) {
    workers[mode] = await serveWorker({
      UPSTASH_REDIS_REST_URL: shim.url,
      UPSTASH_REDIS_REST_TOKEN: TOKEN,
      ORIGIN_URL: origin.url,
      RATE_LIMIT: "100000/60s",
      FAILURE_MODE: mode,
      REDIS_TIMEOUT_MS: String(REDIS_TIMEOUT_MS),
      KEY_PREFIX: `faults-${mode}`,
    });
  }
}, 60_000);
afterAll(async () => {
  await Promise.all(Object.values(workers).map((worker) => worker.dispose()));
  await removeBundle();
  await shim?.close();
  await origin?.close();
  await redis?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ip = (n: number) => `198.18.${(n >> 8) & 255}.${n & 255}`;

/** Polls `probe` until it returns true; resolves with the time it took, or rejects after `limitMs`. */
async function within(limitMs: number, probe: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    if (await probe().catch(() => false)) return performance.now() - started;
    await sleep(50);
  }
  throw new Error(`not within ${limitMs} ms`);
}

/** What the Worker must answer while Redis (or the shim) is failing, per failure mode. */
async function expectFailureModes(label: string) {
  const open = await visit(workers.open, "/during", ip(1));
  expect({ label, status: open.status, limited: open.headers.has("ratelimit") }).toEqual({ label, status: 200, limited: false });
  expect(JSON.parse(open.body)).toMatchObject({ url: "/during" });
  const closed = await visit(workers.closed, "/during", ip(1));
  expect({ label, status: closed.status, body: closed.body }).toEqual({
    label,
    status: 503,
    body: "Service Unavailable: The rate limiter is unavailable; try again shortly.",
  });
  for (const answer of [open, closed]) expect(answer.ms, label).toBeLessThan(REDIS_TIMEOUT_MS + MARGIN_MS);
}

/** The Worker decides with Redis again: the answer carries the rate-limit headers. */
const recovered = (worker: ServedWorker) => async () => {
  const answer = await visit(worker, "/after", ip(2));
  return answer.status === 200 && answer.headers.has("ratelimit");
};

describe("Redis killed under load and started again on the same port", () => {
  it("Should make the shim answer JSON 5xx while Redis is down and serve within seconds of its return, with the Worker following FAILURE_MODE throughout", async () => {
    type Sample = { at: number; target: string; status: number; json: boolean; ms: number };
    const samples: Sample[] = [];
    let running = true;
    const t0 = performance.now();
    const load = async (target: string, once: () => Promise<{ status: number; body: string; ms?: number }>) => {
      while (running) {
        const started = performance.now();
        const answer = await once();
        const json = (() => {
          try {
            JSON.parse(answer.body);
            return true;
          } catch {
            return false;
          }
        })();
        samples.push({ at: started - t0, target, status: answer.status, json, ms: performance.now() - started });
      }
    };
    let n = 100;
    const loaders = [
      load("shim", () => send(shim.url, "/", JSON.stringify(["INCR", "faults:load"]), H)),
      load("shim", () => send(shim.url, "/pipeline", JSON.stringify([["INCR", "faults:load"], ["PING"]]), H)),
      load("open", () => visit(workers.open, "/load", ip(n++ % 50))),
      load("closed", () => visit(workers.closed, "/load", ip(n++ % 50))),
    ];

    await sleep(1000);
    const killedAt = performance.now() - t0;
    process.kill(redis.pid, "SIGKILL");
    // The kill is the fault; stop() then only reaps it and removes its directory, which the
    // restarted server below would otherwise leave behind in the temp dir on every run.
    await redis.stop();
    await sleep(2000);
    const restartedAt = performance.now() - t0;
    redis = await startRedisServer({ port: redisPort });
    const shimBackMs = await within(5000, async () => (await send(shim.url, "/", '["PING"]', H)).status === 200);
    await within(5000, recovered(workers.closed));
    await sleep(1000);
    running = false;
    await Promise.all(loaders);

    const during = (s: Sample) => s.at > killedAt - 100 && s.at < restartedAt + shimBackMs + MARGIN_MS;
    const shimSamples = samples.filter((s) => s.target === "shim");
    expect(shimSamples.every((s) => s.json)).toBe(true);
    expect(new Set(shimSamples.map((s) => s.status))).toEqual(new Set([200, 503]));
    expect(shimSamples.filter((s) => s.status !== 200).every(during)).toBe(true);
    expect(shimBackMs).toBeLessThan(5000);
    const open = samples.filter((s) => s.target === "open");
    expect(open.map((s) => s.status).filter((status) => status !== 200)).toEqual([]);
    const closed = samples.filter((s) => s.target === "closed");
    expect(new Set(closed.map((s) => s.status))).toEqual(new Set([200, 503]));
    expect(closed.filter((s) => s.status === 503).every(during)).toBe(true);
    expect(Math.max(...[...open, ...closed].map((s) => s.ms))).toBeLessThan(REDIS_TIMEOUT_MS + MARGIN_MS);
    console.log(
      `Redis killed at ${Math.round(killedAt)} ms, restarted at ${Math.round(restartedAt)} ms, shim serving again ${Math.round(shimBackMs)} ms later; ` +
        `answers: shim ${count(shimSamples)}, open Worker ${count(open)}, closed Worker ${count(closed)}`,
    );
  }, 60_000);
});

function count(samples: Array<{ status: number }>): string {
  const byStatus = new Map<number, number>();
  for (const { status } of samples) byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  return [...byStatus].map(([status, k]) => `${k}×${status}`).join(" ");
}

describe("the shim slow, answering 500, or killed", () => {
  const injected = [
    ["slower than REDIS_TIMEOUT_MS (3 s)", { delayMs: 3000 }],
    ["answering 500", { status: 500 }],
  ] as const;

  it.each(injected)(
    "Should answer within REDIS_TIMEOUT_MS and a margin, per FAILURE_MODE, while the shim is %s, and decide with Redis again once it is not",
    async (label, fault) => {
      shim.faults.set(fault);
      try {
        await expectFailureModes(`shim ${label}`);
      } finally {
        shim.faults.clear();
      }
      await within(5000, recovered(workers.open));
      await within(5000, recovered(workers.closed));
    },
    30_000,
  );

  it("Should follow FAILURE_MODE while the shim is gone, and recover by itself when it comes back on the same port", async () => {
    await shim.close();
    await expectFailureModes("shim killed");
    shim = await startOurShim(shimPort);
    const openMs = await within(5000, recovered(workers.open));
    const closedMs = await within(5000, recovered(workers.closed));
    expect(Math.max(openMs, closedMs)).toBeLessThan(5000);
  }, 30_000);

  it("Should have logged every failure it followed, and never the token", () => {
    for (const worker of Object.values(workers)) {
      expect(worker.output()).toMatch(/"event":"redis-failure"/);
      expect(worker.output()).not.toContain(TOKEN);
    }
  });
});
