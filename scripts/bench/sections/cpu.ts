/**
 * @module Section 10: CPU per request, the figure Cloudflare bills. Each Worker runs in its own
 * workerd process inside a harness (workers/cpu-harness.ts) that holds, in the same isolate, its
 * load generator, which calls the Worker's `fetch` handler directly, and its network: every fetch
 * it makes (REST endpoint and origin) is answered at once with the replies the real stack gave it
 * once (recording-relay.ts). No socket, no HTTP parser, no Redis and no second Worker per
 * request, so what is timed is the Worker's own code, plus a `Request` in and, per fetch, a JSON
 * parse and a map lookup out, which every contender pays alike (the pass-through row). Each
 * request carries the real stack's `cf`, decoded on first access as workerd does. The Worker
 * is the bundle the other sections serve. The CPU is workerd's, read from /proc
 * (scripts/local/process-cpu.ts) around each round, which is one or more HTTP requests to the
 * harness, at most {@link CHUNK} Worker requests each.
 * Rounds are interleaved; figures are medians of rounds, ratios medians of per-round ratios.
 */
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { get } from "node:http";
import { dirname, join } from "node:path";
import { bundleWorker, type WorkerBundle } from "../lib/bundle.ts";
import { type BenchContext, measured, type Outcome } from "../lib/context.ts";
import { serveKind, targets, type Upstream, type WorkerKind } from "../lib/fleet.ts";
import { interleave } from "../lib/interleave.ts";
import type { ServedWorker } from "../lib/miniflare.ts";
import { cpuNs } from "../../local/process-cpu.ts";
import { freePort } from "../../local/redis-server.ts";
import { profileWhile } from "../lib/cpu-profile.ts";
import { startRecordingRelay } from "../lib/recording-relay.ts";
import type { CannedReply } from "../lib/reply-key.ts";
import { median, pairedRatio, ratioRange } from "../lib/stats.ts";

/** A Worker on a route in one state. */
export type CpuContender = "pass-through" | "floor" | "lean-1" | "ratewall-1" | "ratewall-2" | "ratewall-refused" | "peer-1" | "peer-1-keep-names" | "peer-2";

/** One contender's CPU. */
export interface CpuRow {
  contender: CpuContender;
  /** Median over rounds of workerd CPU µs per request. */
  cpuUs: number;
  /** Lowest and highest round. */
  rangeUs: [number, number];
  /** Every round's µs per request, in round order: what the ratios pair. */
  roundsUs: number[];
  /** REST requests per request when recorded against the real stack (0 for a block-cache refusal). */
  restCalls: number;
  /** The status every timed request answered. */
  status: number;
}

/**
 * One contender over another: the median of per-round CPU ratios, and their range, beside the
 * ratio of the two medians. Where rounds spread more than the contenders differ, the two can
 * disagree by more than the difference itself: read the range first.
 */
export interface CpuRatio {
  contender: CpuContender;
  versus: CpuContender;
  ratio: number;
  range: [number, number];
  ofMedians: number;
}

/** Section 10's data. */
export interface CpuData {
  requestsPerRound: number;
  rounds: number;
  rows: CpuRow[];
  ratios: CpuRatio[];
}

interface Setup {
  kind: WorkerKind;
  path: string;
  status: number;
  /**
   * Built with `keep_names = true`, wrangler's default, where every other Worker has ratewall's
   * `false`: the peer as a user who keeps wrangler's defaults deploys it.
   */
  keepNames?: true;
}

/**
 * In the order the rounds run them: each pair the goals compare (refused / pass-through,
 * ratewall / floor, ratewall / peer, one rule and two) back to back, so that the machine's drift
 * between its two measurements is as small as a round allows.
 */
const setups: Record<CpuContender, Setup> = {
  "pass-through": { kind: "pass-through", path: "/", status: 200 },
  // A 1-per-hour route: the first request spends the quota, every later one is refused.
  "ratewall-refused": { kind: "ratewall", path: "/rt/fixed-window/refuse/cpu", status: 429 },
  floor: { kind: "floor", path: "/", status: 200 },
  "lean-1": { kind: "lean", path: "/", status: 200 },
  "ratewall-1": { kind: "ratewall", path: "/", status: 200 },
  "peer-1": { kind: "peer", path: "/", status: 200 },
  "peer-1-keep-names": { kind: "peer", path: "/", status: 200, keepNames: true },
  "peer-2": { kind: "peer", path: "/two", status: 200 },
  "ratewall-2": { kind: "ratewall", path: "/two", status: 200 },
};

const pairs: Array<[CpuContender, CpuContender]> = [
  ["ratewall-1", "peer-1"],
  ["ratewall-1", "peer-1-keep-names"],
  ["ratewall-2", "peer-2"],
  ["ratewall-refused", "pass-through"],
  ["ratewall-1", "floor"],
  ["ratewall-1", "pass-through"],
  ["floor", "pass-through"],
  // No limiter costs less than the floor, so this bounds how far below the peer one can get.
  ["floor", "peer-1"],
  // Split ratewall's cost over the floor, as section 2 splits its throughput: ratewall's decision
  // alone (lean: its script and its two headers, nothing else), and ratewall's code around it.
  ["lean-1", "floor"],
  ["ratewall-1", "lean-1"],
  ["lean-1", "peer-1"],
];

const restHost = "rest.cpu.invalid";
/**
 * Worker requests per HTTP request to the harness. workerd allows one request 10,000 active timers
 * ("You have exceeded the number of active timeouts you may set"), and each of ratewall's Redis
 * calls holds one until `REDIS_TIMEOUT_MS` has passed (`AbortSignal.timeout` cannot be cleared),
 * so a longer round is split into calls to the harness this size.
 */
const CHUNK = 5000;

/**
 * Records each contender's REST replies, serves it on them in-process, and measures workerd's CPU
 * per request in interleaved rounds.
 *
 * @example
 * const outcome = await measureCpu(ctx);
 */
export async function measureCpu(ctx: BenchContext): Promise<Outcome<CpuData>> {
  const contenders = (Object.keys(setups) as CpuContender[]).filter((c) => !ctx.ratewallMissing || setups[c].kind !== "ratewall");
  const recorded = await recordReplies(ctx, contenders);
  const bundlesDir = dirname(dirname(ctx.bundles.floor.scriptPath));
  const harness = await bundleWorker({ name: "cpu-harness", entry: "scripts/bench/workers/cpu-harness.ts", external: ["./target.js"] }, bundlesDir, "esbuild");
  const served = new Map<CpuContender, ServedWorker & { inspectorPort?: number }>();
  const inProcess: Upstream = { ...ctx.upstream, originUrl: "http://origin.cpu.invalid", restUrl: `http://${restHost}` };
  try {
    for (const contender of contenders) {
      ctx.progress.step(`cpu: starting ${contender} in its harness`);
      const { kind, keepNames } = setups[contender];
      const bundle = keepNames
        ? await bundleWorker({ ...targets[kind], name: `${kind}-keep-names`, keepNames }, bundlesDir, ctx.profile.bundler)
        : ctx.bundles[kind];
      const inHarness = await harnessed(bundle, harness, join(bundlesDir, `cpu-${contender}`));
      const replies = JSON.stringify(recorded.get(contender)!.replies);
      const inspectorPort = ctx.cpuProfilesDir ? await freePort() : undefined;
      const worker = await serveKind(kind, inHarness, inProcess, ctx.keyPrefix, { bindings: { REST_HOST: restHost, REPLIES: replies }, inspectorPort });
      served.set(contender, { ...worker, inspectorPort });
    }
    const { requests, rounds, warmupRequests } = ctx.profile.cpu;
    const run = async (contender: CpuContender, amount: number) => {
      const { url, pid } = served.get(contender)!;
      const query = new URLSearchParams({ n: String(amount), path: setups[contender].path, ip: `10.200.${contenders.indexOf(contender)}.1` });
      const before = await cpuNs(pid);
      for (let left = amount; left > 0; left -= CHUNK) {
        const n = Math.min(CHUNK, left);
        query.set("n", String(n));
        const answer = await getOnce(`${url}/?${query}`);
        const { statuses = {} } = (answer.status === 200 ? JSON.parse(answer.text) : {}) as { statuses?: Record<string, number> };
        if (statuses[String(setups[contender].status)] !== n) {
          throw new Error(`${contender} answered ${answer.status} ${answer.text}; expected ${n} × ${setups[contender].status}`);
        }
      }
      const used = (await cpuNs(pid)) - before;
      return used / 1000 / amount;
    };
    for (const contender of contenders) {
      ctx.progress.step(`cpu warm-up: ${contender}`);
      await run(contender, warmupRequests);
    }
    const byContender = await interleave(contenders, rounds, (contender, round) => {
      ctx.progress.step(`cpu round ${round + 1}/${rounds}: ${contender}`);
      return run(contender, requests);
    });
    if (ctx.cpuProfilesDir) {
      for (const contender of contenders) {
        ctx.progress.step(`cpu: profiling one round of ${contender}`);
        const profile = await profileWhile(served.get(contender)!.inspectorPort!, () => run(contender, requests));
        await writeFile(join(ctx.cpuProfilesDir, `workerd-${contender}.cpuprofile`), JSON.stringify(profile));
      }
    }
    const rows = contenders.map((contender): CpuRow => {
      const us = byContender[contender];
      return {
        contender,
        cpuUs: median(us),
        rangeUs: [Math.min(...us), Math.max(...us)],
        roundsUs: us,
        restCalls: recorded.get(contender)!.restCalls,
        status: setups[contender].status,
      };
    });
    const ratios = pairs
      .filter(([a, b]) => contenders.includes(a) && contenders.includes(b))
      .map(
        ([a, b]): CpuRatio => ({
          contender: a,
          versus: b,
          ratio: pairedRatio(byContender[a], byContender[b]),
          range: ratioRange(byContender[a], byContender[b]),
          ofMedians: median(byContender[a]) / median(byContender[b]),
        }),
      );
    return measured({ requestsPerRound: requests, rounds, rows, ratios });
  } finally {
    for (const worker of served.values()) await worker.dispose();
  }
}

/**
 * A GET on a connection of its own. A harness's rounds are seconds apart, and a full run once
 * failed with `other side closed` on a round: a kept-alive connection, reused as workerd closed
 * it for idleness, is the likely cause, and one connection per round rules it out.
 */
function getOnce(url: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
      response.on("error", reject);
    }).on("error", reject);
  });
}

/** `worker` inside the harness: both bundles in `dir`, the harness importing the Worker as `./target.js`. */
async function harnessed(worker: WorkerBundle, harness: WorkerBundle, dir: string): Promise<WorkerBundle> {
  await mkdir(dir, { recursive: true });
  await copyFile(worker.scriptPath, join(dir, "target.js"));
  await copyFile(harness.scriptPath, join(dir, "harness.js"));
  return { ...worker, scriptPath: join(dir, "harness.js") };
}

/**
 * Sends each contender's requests once through the real stack, behind a recording relay: two to
 * reach its steady state (scripts loaded, a refusal cached), then two more to count its REST
 * requests per request.
 */
async function recordReplies(ctx: BenchContext, contenders: CpuContender[]) {
  const relay = await startRecordingRelay(ctx.upstream.restUrl);
  const workers = new Map<WorkerKind, ServedWorker>();
  const recorded = new Map<CpuContender, { replies: Record<string, CannedReply>; restCalls: number }>();
  try {
    for (const contender of contenders) {
      ctx.progress.step(`cpu: recording ${contender}'s REST replies`);
      const { kind, path, status } = setups[contender];
      if (!workers.has(kind)) workers.set(kind, await serveKind(kind, ctx.bundles[kind], { ...ctx.upstream, restUrl: relay.url }, ctx.keyPrefix));
      relay.reset();
      const client = { "cf-connecting-ip": `10.201.${contenders.indexOf(contender)}.1` };
      const send = async () => {
        const response = await fetch(`${workers.get(kind)!.url}${path}`, { headers: client });
        await response.arrayBuffer();
        return response.status;
      };
      await send();
      await send();
      const before = relay.requests;
      const last = [await send(), await send()];
      if (last.some((s) => s !== status)) throw new Error(`${contender} answered ${last.join(", ")} on the real stack; expected ${status}`);
      recorded.set(contender, { replies: { ...relay.replies }, restCalls: (relay.requests - before) / 2 });
    }
    return recorded;
  } finally {
    for (const worker of workers.values()) await worker.dispose();
    await relay.close();
  }
}
