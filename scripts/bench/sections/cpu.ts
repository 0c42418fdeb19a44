/**
 * @module Section 10: CPU per request, the figure Cloudflare bills. Each Worker runs in its own
 * workerd process with every outbound fetch (REST endpoint and origin) answered in that process by
 * a second Worker (workers/canned-replies.ts) with the replies the real stack gave it once
 * (recording-relay.ts): no socket, no Redis, so only the Workers' own code is timed, plus the
 * incoming HTTP that every contender pays alike. The CPU is workerd's, read from /proc
 * (scripts/local/process-cpu.ts) around each round; the load generator runs in the bench's process and is not
 * counted. Rounds are interleaved; figures are medians of rounds, ratios medians of per-round
 * ratios.
 */
import { dirname } from "node:path";
import { bundleWorker } from "../lib/bundle.ts";
import { type BenchContext, measured, type Outcome } from "../lib/context.ts";
import { serveKind, type Upstream, type WorkerKind } from "../lib/fleet.ts";
import { interleave } from "../lib/interleave.ts";
import type { ServedWorker } from "../lib/miniflare.ts";
import { childPids, cpuNs } from "../../local/process-cpu.ts";
import { startRecordingRelay } from "../lib/recording-relay.ts";
import type { CannedReply } from "../lib/reply-key.ts";
import { median, pairedRatio, ratioRange } from "../lib/stats.ts";

/** A Worker on a route in one state. */
export type CpuContender = "pass-through" | "floor" | "ratewall-1" | "ratewall-2" | "ratewall-refused" | "peer-1" | "peer-2";

/** One contender's CPU. */
export interface CpuRow {
  contender: CpuContender;
  /** Median over rounds of workerd CPU µs per request. */
  cpuUs: number;
  /** Lowest and highest round. */
  rangeUs: [number, number];
  /** REST requests per request when recorded against the real stack (0 for a block-cache refusal). */
  restCalls: number;
  /** The status every timed request answered. */
  status: number;
}

/** One contender over another: the median of per-round CPU ratios, and their range. */
export interface CpuRatio {
  contender: CpuContender;
  versus: CpuContender;
  ratio: number;
  range: [number, number];
}

/** Section 10's data. */
export interface CpuData {
  requestsPerRound: number;
  rounds: number;
  concurrency: number;
  rows: CpuRow[];
  ratios: CpuRatio[];
}

interface Setup {
  kind: WorkerKind;
  path: string;
  status: number;
}

const setups: Record<CpuContender, Setup> = {
  "pass-through": { kind: "pass-through", path: "/", status: 200 },
  floor: { kind: "floor", path: "/", status: 200 },
  "ratewall-1": { kind: "ratewall", path: "/", status: 200 },
  "ratewall-2": { kind: "ratewall", path: "/two", status: 200 },
  // A 1-per-hour route: the first request spends the quota, every later one is refused.
  "ratewall-refused": { kind: "ratewall", path: "/rt/fixed-window/refuse/cpu", status: 429 },
  "peer-1": { kind: "peer", path: "/", status: 200 },
  "peer-2": { kind: "peer", path: "/two", status: 200 },
};

const pairs: Array<[CpuContender, CpuContender]> = [
  ["ratewall-1", "peer-1"],
  ["ratewall-2", "peer-2"],
  ["ratewall-refused", "pass-through"],
  ["ratewall-1", "floor"],
  ["ratewall-1", "pass-through"],
  ["floor", "pass-through"],
];

const restHost = "rest.cpu.invalid";
const concurrency = 8;

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
  const canned = await bundleWorker({ name: "canned-replies", entry: "scripts/bench/workers/canned-replies.ts" }, bundlesDir, "esbuild");
  const served = new Map<CpuContender, { worker: ServedWorker; pid: number }>();
  const inProcess: Upstream = { ...ctx.upstream, originUrl: "http://origin.cpu.invalid", restUrl: `http://${restHost}` };
  try {
    for (const contender of contenders) {
      ctx.progress.step(`cpu: starting ${contender} with in-process replies`);
      const before = await childPids("workerd");
      const outbound = { bundle: canned, bindings: { REST_HOST: restHost, REPLIES: JSON.stringify(recorded.get(contender)!.replies) } };
      const worker = await serveKind(setups[contender].kind, ctx.bundles, inProcess, ctx.keyPrefix, outbound);
      const started = [...(await childPids("workerd"))].filter((pid) => !before.has(pid));
      if (started.length !== 1) {
        await worker.dispose();
        throw new Error(`expected one new workerd process for ${contender}, found ${started.length}`);
      }
      served.set(contender, { worker, pid: started[0]! });
    }
    const { requests, rounds, warmupRequests } = ctx.profile.cpu;
    const client = (contender: CpuContender) => ({ "cf-connecting-ip": `10.200.${contenders.indexOf(contender)}.1` });
    const run = async (contender: CpuContender, amount: number) => {
      const { worker, pid } = served.get(contender)!;
      const before = await cpuNs(pid);
      const result = await ctx.load.run({ url: `${worker.url}${setups[contender].path}`, connections: concurrency, amount, headers: client(contender) });
      const used = (await cpuNs(pid)) - before;
      const expected = result.statuses[String(setups[contender].status)] ?? 0;
      if (expected !== result.requests || result.errors) {
        throw new Error(`${contender} answered ${JSON.stringify(result.statuses)} with ${result.errors} errors; expected only ${setups[contender].status}`);
      }
      return used / 1000 / result.requests;
    };
    for (const contender of contenders) {
      ctx.progress.step(`cpu warm-up: ${contender}`);
      await run(contender, warmupRequests);
    }
    const byContender = await interleave(contenders, rounds, (contender, round) => {
      ctx.progress.step(`cpu round ${round + 1}/${rounds}: ${contender}`);
      return run(contender, requests);
    });
    const rows = contenders.map((contender): CpuRow => {
      const us = byContender[contender];
      return {
        contender,
        cpuUs: median(us),
        rangeUs: [Math.min(...us), Math.max(...us)],
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
        }),
      );
    return measured({ requestsPerRound: requests, rounds, concurrency, rows, ratios });
  } finally {
    for (const { worker } of served.values()) await worker.dispose();
  }
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
      if (!workers.has(kind)) workers.set(kind, await serveKind(kind, ctx.bundles, { ...ctx.upstream, restUrl: relay.url }, ctx.keyPrefix));
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
