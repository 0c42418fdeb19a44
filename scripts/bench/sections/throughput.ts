/**
 * @module Section 2: what the Worker adds, against the physical floor. The five Workers run side
 * by side on one stack and are loaded in interleaved rounds at each concurrency level, with one
 * and with two rules per route. Ratios are taken round by round (stats.ts), then the median.
 * Around each round the CPU of every process a request crosses is read from /proc, so the report
 * can say where one request's time goes: the Worker's workerd, the shim and the origin (the
 * bench's main thread; the load generator has its own thread), and Redis.
 */
import { type BenchContext, measured, type Outcome } from "../lib/context.ts";
import type { WorkerKind } from "../lib/fleet.ts";
import { interleave } from "../lib/interleave.ts";
import type { LoadResult } from "../lib/load.ts";
import type { ServedWorker } from "../lib/miniflare.ts";
import { cpuNs, threadCpuNs } from "../../local/process-cpu.ts";
import { median, pairedRatio, ratioRange } from "../lib/stats.ts";

/** A Worker on a route: `ratewall-2` is ratewall on the two-rule route. */
export type Contender = "pass-through" | "floor" | "lean-1" | "ratewall-1" | "ratewall-2" | "peer-1" | "peer-2";

/** Medians over rounds for one contender at one concurrency. Latencies in ms. */
export interface ThroughputRow {
  contender: Contender;
  concurrency: number;
  rps: number;
  p50: number;
  p99: number;
  /** connections / rps: the mean latency, which the rps ratios mirror. */
  meanMs: number;
  /** Responses that were not 200, and socket errors, over all rounds (should be 0). */
  non200: number;
  errors: number;
  /** Medians over rounds of each process's CPU per request. */
  cpu: StackCpu;
  rounds: Array<Pick<LoadResult, "rps" | "p50" | "p99">>;
}

/** CPU one request costs each process it crosses, over a whole round (µs; ns in a raw snapshot). */
export interface StackCpu {
  /** The Worker's workerd process (the Worker, and Miniflare's entry Worker in front of it). */
  workerd: number;
  /** The bench's main thread: the REST shim and the origin. */
  shimAndOrigin: number;
  redis: number;
}

/**
 * ratewall over another Worker, same rule count and concurrency; median of per-round ratios. With
 * `worker: "lean"`, the lean Worker over the floor (what ratewall's decision costs by itself) and
 * over the peer (the most a Worker making ratewall's decision could lead the peer by). With
 * `worker: "floor"`, the floor over the peer: the most any limiter could lead the peer by, since
 * none can cost less than the floor.
 */
export interface ThroughputRatio {
  /** The Worker measured against `versus`. */
  worker: "ratewall" | "lean" | "floor";
  concurrency: number;
  rules: 1 | 2;
  versus: "floor" | "peer" | "pass-through" | "lean";
  /** ratewall rps / other rps (below 1: ratewall serves fewer). */
  rps: number;
  /** The lowest and highest per-round rps ratio: the noise around `rps`. */
  rpsRange: [number, number];
  /** ratewall p50 / other p50, and p99 (above 1: ratewall is slower). */
  p50: number;
  p99: number;
  meanMs: number;
}

/** Section 2's data. */
export interface ThroughputData {
  secondsPerRound: number;
  rounds: number;
  /** Unrecorded requests per Worker and concurrency before the rounds. */
  warmupRequests: number;
  rows: ThroughputRow[];
  ratios: ThroughputRatio[];
}

const routes: Record<Contender, [WorkerKind, string]> = {
  "pass-through": ["pass-through", "/"],
  floor: ["floor", "/"],
  "lean-1": ["lean", "/"],
  "ratewall-1": ["ratewall", "/"],
  "ratewall-2": ["ratewall", "/two"],
  "peer-1": ["peer", "/"],
  "peer-2": ["peer", "/two"],
};

/**
 * Loads every available contender at every concurrency level of the profile.
 *
 * @example
 * const outcome = await measureThroughput(ctx);
 */
export async function measureThroughput(ctx: BenchContext): Promise<Outcome<ThroughputData>> {
  const contenders: Contender[] = ["pass-through", "floor", "lean-1"];
  if (!ctx.ratewallMissing) contenders.push("ratewall-1", "ratewall-2");
  contenders.push("peer-1", "peer-2");
  const kinds = [...new Set(contenders.map((c) => routes[c][0]))];
  const { concurrency, rounds, seconds, warmupRequests } = ctx.profile.throughput;
  const rows: ThroughputRow[] = [];
  const ratios: ThroughputRatio[] = [];
  const workers = new Map<WorkerKind, ServedWorker>();
  for (const kind of kinds) workers.set(kind, await ctx.workers.get(kind));
  const url = (contender: Contender) => `${workers.get(routes[contender][0])!.url}${routes[contender][1]}`;
  for (const connections of concurrency) {
    // Unrecorded warm-up: JIT, connection pools and script caches, at this concurrency; too short
    // a warm-up shows up as every contender speeding up round after round.
    for (const contender of contenders) {
      ctx.progress.step(`throughput c=${connections} warm-up: ${contender}`);
      await ctx.load.run({ url: url(contender), connections, amount: Math.max(warmupRequests, connections), headers: { "cf-connecting-ip": "10.255.0.1" } });
    }
    const byContender = await interleave(contenders, rounds, async (contender, round) => {
      ctx.progress.step(`throughput c=${connections} round ${round + 1}/${rounds}: ${contender}`);
      // One client per contender and round; limits are unreachable, so nothing is refused.
      const headers = { "cf-connecting-ip": `10.${contenders.indexOf(contender)}.${connections}.${round + 1}` };
      const workerd = workers.get(routes[contender][0])!.pid;
      const before = await stackCpuNs(workerd, ctx.stack.redis.pid);
      const result = await ctx.load.run({ url: url(contender), connections, seconds, headers });
      const after = await stackCpuNs(workerd, ctx.stack.redis.pid);
      const us = (part: keyof StackCpu) => (after[part] - before[part]) / 1000 / result.requests;
      return { ...result, cpu: { workerd: us("workerd"), shimAndOrigin: us("shimAndOrigin"), redis: us("redis") } };
    });
    for (const contender of contenders) rows.push(summarize(contender, connections, byContender[contender]));
    ratios.push(...ratiosAt(connections, byContender));
  }
  return measured({ secondsPerRound: seconds, rounds, warmupRequests, rows, ratios });
}

/** CPU ns so far of each part of the stack; the shim and the origin run in this process's main thread. */
async function stackCpuNs(workerdPid: number, redisPid: number): Promise<StackCpu> {
  const [workerd, redis, shimAndOrigin] = await Promise.all([cpuNs(workerdPid), cpuNs(redisPid), threadCpuNs(process.pid, process.pid)]);
  return { workerd, shimAndOrigin, redis };
}

/**
 * What one request costs the whole stack, µs.
 *
 * @example
 * stackTotal(row.cpu); // → 739
 */
export function stackTotal({ workerd, shimAndOrigin, redis }: StackCpu): number {
  return workerd + shimAndOrigin + redis;
}

function ratiosAt(concurrency: number, byContender: Partial<Record<Contender, LoadResult[]>>): ThroughputRatio[] {
  const ratios: ThroughputRatio[] = [];
  const compare = (
    worker: ThroughputRatio["worker"],
    rules: 1 | 2,
    ours: LoadResult[] | undefined,
    others: Partial<Record<ThroughputRatio["versus"], LoadResult[]>>,
  ) => {
    if (!ours) return;
    for (const [versus, theirs] of Object.entries(others) as Array<[ThroughputRatio["versus"], LoadResult[] | undefined]>) {
      if (!theirs) continue;
      const paired = (field: "rps" | "p50" | "p99") =>
        pairedRatio(
          ours.map((r) => r[field]),
          theirs.map((r) => r[field]),
        );
      // Mean latency is connections / rps, so its ratio is the inverse of the throughput ratio.
      const meanMs = pairedRatio(
        theirs.map((r) => r.rps),
        ours.map((r) => r.rps),
      );
      const rpsRange = ratioRange(
        ours.map((r) => r.rps),
        theirs.map((r) => r.rps),
      );
      ratios.push({ worker, concurrency, rules, versus, rps: paired("rps"), rpsRange, p50: paired("p50"), p99: paired("p99"), meanMs });
    }
  };
  for (const rules of [1, 2] as const) {
    const others = { floor: byContender.floor, "pass-through": byContender["pass-through"], peer: byContender[`peer-${rules}`] };
    compare("ratewall", rules, byContender[`ratewall-${rules}`], rules === 1 ? { ...others, lean: byContender["lean-1"] } : others);
  }
  // Over the peer too: no Worker that makes ratewall's decision can lead the peer by more than lean does.
  compare("lean", 1, byContender["lean-1"], { floor: byContender.floor, peer: byContender["peer-1"] });
  for (const rules of [1, 2] as const) compare("floor", rules, byContender.floor, { peer: byContender[`peer-${rules}`] });
  return ratios;
}

function summarize(contender: Contender, concurrency: number, results: Array<LoadResult & { cpu: StackCpu }>): ThroughputRow {
  const rps = median(results.map((r) => r.rps));
  const cpu = (field: keyof StackCpu) => median(results.map((r) => r.cpu[field]));
  return {
    contender,
    concurrency,
    rps,
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    meanMs: (concurrency / rps) * 1000,
    non200: results.reduce((sum, r) => sum + r.requests - (r.statuses["200"] ?? 0), 0),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    cpu: { workerd: cpu("workerd"), shimAndOrigin: cpu("shimAndOrigin"), redis: cpu("redis") },
    rounds: results.map(({ rps, p50, p99 }) => ({ rps, p50, p99 })),
  };
}
