/**
 * @module `npm run soak`: about a minute of sustained load on the local stack, to show that
 * nothing fails beyond the expected 429s and that memory stays flat (issue 6, "Load").
 *
 * It starts its own `redis-server`, the Upstash REST shim from its CLI in a child process, a tiny
 * origin, and the Worker bundled by `wrangler deploy --dry-run` and served by Miniflare (its own
 * workerd process). autocannon loads the Worker on 127.0.0.1 only: most requests come from 2,000
 * light clients (never refused), one in ten from 5 heavy ones (mostly refused). Every 5 s it
 * prints the shim's and workerd's resident memory and the answers so far; then a verdict.
 *
 * @example
 * npm run soak                      # 60 s, 16 connections
 * SOAK_SECONDS=20 SOAK_CONNECTIONS=8 npm run soak
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Miniflare } from "miniflare";
import { bundleWorker } from "./bench/lib/bundle.ts";
import { startOrigin } from "./local/origin.ts";
import { childPids } from "./local/process-cpu.ts";
import { rssKiB } from "./local/process-memory.ts";
import { freePort, startRedisServer } from "./local/redis-server.ts";
import { spawnShim } from "./local/shim-process.ts";

/** A whole number from `min` to `max` from the environment, or exit naming the variable and the value. */
function setting(name: string, fallback: number, min: number, max: number): number {
  const text = process.env[name];
  if (text === undefined) return fallback;
  if (/^\d+$/.test(text) && Number(text) >= min && Number(text) <= max) return Number(text);
  console.error(`soak: ${name}: invalid value ${JSON.stringify(text)} (expected a whole number from ${min} to ${max})`);
  process.exit(2);
}
// Memory is judged on the samples after a 10 s warm-up, two halves of them at least: 20 s.
const SECONDS = setting("SOAK_SECONDS", 60, 20, 3600);
const CONNECTIONS = setting("SOAK_CONNECTIONS", 16, 1, 1000);
const SAMPLE_MS = 5000;
/** Growth allowed from the samples after warm-up to the last ones (RSS and heaps move in steps). */
const FLAT_MIB = { shim: 24, heap: 8 };

type Autocannon = (options: Record<string, unknown>) => AutocannonInstance;
interface AutocannonInstance extends PromiseLike<{ errors: number; timeouts: number; requests: { average: number }; latency: { p50: number; p99: number } }> {
  on(event: "response", listener: (client: unknown, status: number) => void): void;
  stop(): void;
}
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

interface WebSocketLike {
  once(event: "open", listener: () => void): void;
  on(event: "message", listener: (data: Buffer) => void): void;
  send(text: string): void;
  close(): void;
}
const WebSocket = createRequire(import.meta.url)("ws") as new (url: string) => WebSocketLike;

/**
 * The Worker's JavaScript heap in use, read from workerd's inspector (V8's Runtime.getHeapUsage).
 * workerd's RSS is not the measure: it grows under load with a pass-through Worker just as much
 * (its allocator keeps what it got), while a leak in ratewall would show in this heap.
 */
async function connectHeapProbe(inspectorPort: number): Promise<{ usedMiB(): Promise<number>; close(): void }> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
  const ws = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  await new Promise<void>((resolve) => ws.once("open", resolve));
  const pending = new Map<number, (usedSize: number) => void>();
  ws.on("message", (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: { usedSize: number } };
    if (message.id !== undefined && message.result) pending.get(message.id)?.(message.result.usedSize);
  });
  let id = 0;
  return {
    usedMiB: () =>
      new Promise((resolve) => {
        pending.set(++id, (bytes) => resolve(Math.round(bytes / 104_857.6) / 10));
        ws.send(JSON.stringify({ id, method: "Runtime.getHeapUsage" }));
      }),
    close: () => ws.close(),
  };
}

/** Resident memory of `pid`, MiB to one decimal. */
function rssMiB(pid: number): number {
  return Math.round(rssKiB(pid) / 102.4) / 10;
}

/** ratewall as deployed (built from wrangler.toml, as `wrangler deploy` builds it), or (`SOAK_ENTRY`) another Worker to compare with, e.g. a pass-through. */
const SOAK_TARGET = process.env.SOAK_ENTRY ? { name: "soak", entry: process.env.SOAK_ENTRY } : { name: "ratewall", entry: "src/index.ts", projectConfig: true };

async function main() {
  const stops: Array<() => Promise<unknown>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((error) => console.error(error));
  };
  // Stopped early (Ctrl-C, SIGTERM), the process exits before an async stop could run: Miniflare's
  // own signal hook calls process.exit at once. What must not outlive the soak is undone as the
  // process exits, synchronously, unless stopAll finished first.
  let stopped = false;
  const atExit: Array<() => void> = [];
  process.once("exit", () => {
    if (stopped) return;
    for (const undo of atExit) {
      try {
        undo();
      } catch {} // Already gone.
    }
  });
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)
    process.once(signal, () => process.exit(code));
  try {
    const dir = await mkdtemp(join(tmpdir(), "ratewall-soak-"));
    stops.push(() => rm(dir, { recursive: true, force: true }));
    atExit.push(() => rmSync(dir, { recursive: true, force: true }));
    console.log("soak: bundling the Worker (wrangler deploy --dry-run)…");
    const { scriptPath, compatibilityDate, compatibilityFlags } = await bundleWorker(SOAK_TARGET, dir, "wrangler");
    const redis = await startRedisServer();
    stops.push(redis.stop);
    atExit.push(
      () => process.kill(redis.pid, "SIGTERM"),
      () => rmSync(redis.dir, { recursive: true, force: true }),
    );
    const token = randomBytes(16).toString("hex");
    const shim = await spawnShim(["--redis-url", redis.url, "--token", token]);
    stops.push(shim.stop);
    atExit.push(() => process.kill(shim.pid, "SIGTERM"));
    const origin = await startOrigin({ echo: false });
    stops.push(origin.close);
    const inspectorPort = await freePort();
    const mf = new Miniflare({
      name: "ratewall",
      inspectorPort,
      unsafeInspectorProxy: true,
      scriptPath,
      modulesRoot: dirname(scriptPath),
      modules: true,
      compatibilityDate,
      compatibilityFlags,
      host: "127.0.0.1",
      port: 0,
      bindings: {
        UPSTASH_REDIS_REST_URL: shim.url,
        UPSTASH_REDIS_REST_TOKEN: token,
        ORIGIN_URL: origin.url,
        RATE_LIMIT: "50/10s",
        FAILURE_MODE: "closed",
      },
    });
    stops.push(() => mf.dispose());
    const workerUrl = (await mf.ready).origin;
    const [workerd] = await childPids("workerd");
    if (workerd === undefined) throw new Error("workerd process not found");
    const pids = { shim: shim.pid, workerd };
    const heap = await connectHeapProbe(inspectorPort);
    stops.push(async () => heap.close());

    let n = 0;
    // Every tenth request from one of the 5 heavy clients in turn (n / 10, not n: n is then a multiple of 5).
    const clientIp = () => (++n % 10 === 0 ? `203.0.113.${(n / 10) % 5}` : `198.18.${(n >> 8) & 7}.${n & 255}`);
    const statuses = new Map<number, number>();
    const run = autocannon({
      url: workerUrl,
      connections: CONNECTIONS,
      duration: SECONDS,
      timeout: 10,
      requests: [
        {
          method: "GET",
          path: "/soak",
          setupRequest: (request: { headers?: Record<string, string> }) => ({ ...request, headers: { ...request.headers, "cf-connecting-ip": clientIp() } }),
        },
      ],
    });
    run.on("response", (_, status) => statuses.set(status, (statuses.get(status) ?? 0) + 1));
    stops.push(async () => run.stop());

    console.log(`soak: ${SECONDS} s at ${CONNECTIONS} connections on ${workerUrl} (shim pid ${pids.shim}, workerd pid ${pids.workerd})`);
    console.log("   t   shim RSS   Worker heap (min–max)  workerd RSS   answers so far");
    const samples: Array<{ t: number; shim: number; heap: number; heapMax: number; workerd: number }> = [];
    // The heap saw-tooths between collections (which the inspector cannot force): read it twice a
    // second and keep each interval's lowest value, the floor left after a collection.
    let heapReadings: number[] = [];
    const heapTimer = setInterval(() => void heap.usedMiB().then((mib) => heapReadings.push(mib)), 500);
    const started = Date.now();
    const sample = async () => {
      const t = Math.round((Date.now() - started) / 1000);
      const readings = [...heapReadings, await heap.usedMiB()];
      heapReadings = [];
      const now = { t, shim: rssMiB(pids.shim), heap: Math.min(...readings), heapMax: Math.max(...readings), workerd: rssMiB(pids.workerd) };
      samples.push(now);
      const answers = [...statuses].map(([status, count]) => `${count}×${status}`).join(" ");
      const range = `${now.heap.toFixed(1)}–${now.heapMax.toFixed(1)} MiB`;
      console.log(
        `${String(t).padStart(4)} s ${now.shim.toFixed(1).padStart(6)} MiB ${range.padStart(18)} ${now.workerd.toFixed(1).padStart(10)} MiB   ${answers}`,
      );
    };
    await sample();
    const timer = setInterval(() => void sample(), SAMPLE_MS);
    const result = await run;
    clearInterval(timer);
    clearInterval(heapTimer);
    await sample();

    const total = [...statuses.values()].reduce((a, b) => a + b, 0);
    const unexpected = [...statuses].filter(([status]) => status !== 200 && status !== 429);
    // After warm-up, the first half against the second: the shim's highest RSS, and the Worker's
    // heap floor (what survives collections; a leak raises it).
    const settled = samples.filter((s) => s.t >= 10);
    const early = settled.slice(0, Math.ceil(settled.length / 2));
    const late = settled.slice(Math.ceil(settled.length / 2));
    const peak = (from: typeof samples, key: "shim" | "workerd") => Math.max(...from.map((s) => s[key]));
    const floor = (from: typeof samples) => Math.min(...from.map((s) => s.heap));
    const growth = { shim: peak(late, "shim") - peak(early, "shim"), heap: floor(late) - floor(early) };
    const problems = [
      ...(result.errors + result.timeouts > 0 ? [`${result.errors} socket errors, ${result.timeouts} timeouts`] : []),
      ...unexpected.map(([status, count]) => `${count} answers with status ${status}`),
      ...(statuses.get(429) ? [] : ["no 429 at all: the heavy clients were never refused"]),
      ...(growth.shim > FLAT_MIB.shim ? [`the shim's RSS grew ${growth.shim.toFixed(1)} MiB after warm-up (allowed ${FLAT_MIB.shim})`] : []),
      ...(growth.heap > FLAT_MIB.heap ? [`the Worker's heap grew ${growth.heap.toFixed(1)} MiB after warm-up (allowed ${FLAT_MIB.heap})`] : []),
    ];
    console.log(`\nsoak: ${total} answers, ${Math.round(result.requests.average)} req/s, latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`);
    console.log(
      `soak: first half after ${early[0]?.t} s → second half: shim RSS peak ${peak(early, "shim")} → ${peak(late, "shim")} MiB (${signed(growth.shim)}), ` +
        `Worker heap floor ${floor(early)} → ${floor(late)} MiB (${signed(growth.heap)}); workerd RSS peak ${peak(early, "workerd")} → ${peak(late, "workerd")} MiB (not judged: see connectHeapProbe)`,
    );
    console.log(problems.length ? `soak: FAIL\n  - ${problems.join("\n  - ")}` : "soak: PASS (only 200s and the expected 429s; memory flat)");
    process.exitCode = problems.length ? 1 : 0;
  } finally {
    await stopAll();
    stopped = true;
  }
}

const signed = (mib: number) => `${mib >= 0 ? "+" : ""}${mib.toFixed(1)} MiB`;

main().catch((error) => {
  console.error(`soak: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
