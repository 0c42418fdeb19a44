/**
 * @module Section 8: accuracy on long traces. The issue-13 trace (clients at 0.3×–3× the limit's
 * rate, Poisson, and a bursty on/off variant) through every algorithm's model (./lib/trace.ts),
 * per band of client rate: decisions unlike the exact ones on the same admitted history, the most
 * admitted in any trailing window, and admissions against an exact log's on the same arrivals.
 * Also the error counted Cloudflare's way (every request counts toward the rate), and, for the
 * chart, one over-limit client's trailing count over time.
 */
import { algorithms as registry } from "../../../src/limiter/registry.ts";
import type { AlgorithmName } from "../../../src/limiter/types.ts";
import { type BenchContext, measured, type Outcome } from "../lib/context.ts";
import { algorithms } from "../lib/scenarios.ts";
import { type ClientErrors, replay, traceClients, type TraceShape } from "../lib/trace.ts";

/** Bands of client rate, × the limit's rate. */
export const BANDS = [
  { band: "under 0.8×", below: 0.8 },
  { band: "0.8–1.2×", below: 1.2 },
  { band: "over 1.2×", below: Infinity },
] as const;

/** One algorithm on one band of one trace. */
export interface TraceRow {
  trace: "poisson" | "bursty";
  algorithm: AlgorithmName;
  band: string;
  requests: number;
  /** Shares of the band's requests. */
  wronglyAllowed: number;
  wronglyRefused: number;
  /** The most admitted in any trailing window, × the limit. */
  maxInWindow: number;
  /** Admitted, × what an exact log admits on the same arrivals. */
  admittedVsLog: number;
}

/** One algorithm over a whole trace, counted Cloudflare's way. */
export interface CloudflareRow {
  algorithm: AlgorithmName;
  /** Share of all decisions unlike the exact rate's. */
  wrong: number;
}

/** One point of the chart: a client's admitted count in the trailing window, at `t` s into the trace. */
export interface TracePoint {
  algorithm: AlgorithmName;
  t: number;
  inWindow: number;
}

/** Section 8's data. */
export interface TraceData {
  clients: number;
  windows: number;
  limit: number;
  windowMs: number;
  seed: number;
  rows: TraceRow[];
  /** Shares of all decisions of the Poisson trace that were wrongly allowed, per algorithm. */
  wronglyAllowedOverall: Array<{ algorithm: AlgorithmName; share: number }>;
  cloudflare: CloudflareRow[];
  /** The charted client's rate, × the limit's. */
  chartRate: number;
  points: TracePoint[];
}

const SEED = 13;

/**
 * Runs both traces through every algorithm.
 *
 * @example
 * const outcome = measureTrace(ctx);
 */
export function measureTrace(ctx: Pick<BenchContext, "profile" | "progress">): Outcome<TraceData> {
  const { clients, windows, limit, windowMs } = ctx.profile.trace;
  const rows: TraceRow[] = [];
  const wronglyAllowedOverall: TraceData["wronglyAllowedOverall"] = [];
  const cloudflare: CloudflareRow[] = [];
  const points: TracePoint[] = [];
  let chartRate = 0;
  for (const trace of ["poisson", "bursty"] as const) {
    const shape: TraceShape = { clients, windows, limit, windowMs, seed: SEED, bursty: trace === "bursty" };
    const totals = new Map<string, ClientErrors & { logAdmitted: number }>();
    const wrongCloudflare = new Map<AlgorithmName, number>();
    let requests = 0;
    let charted = false;
    for (const client of traceClients(shape)) {
      const band = BANDS.find((b) => client.rate < b.below)!.band;
      const chart = trace === "poisson" && !charted && client.rate > 1.8 && client.rate < 2.2;
      if (chart) [charted, chartRate] = [true, client.rate];
      requests += client.times.length;
      const logAdmitted = replay(registry["sliding-log"], client.times, paramsFor(limit, windowMs), false).admitted;
      for (const algorithm of algorithms) {
        const params = paramsFor(limit, windowMs, registry[algorithm].defaultBuckets);
        const sample = chart ? sampler(algorithm, points, windowMs) : undefined;
        const errors = replay(registry[algorithm], client.times, params, false, sample);
        const total = totals.get(`${algorithm} ${band}`) ?? { requests: 0, admitted: 0, wronglyAllowed: 0, wronglyRefused: 0, maxInWindow: 0, logAdmitted: 0 };
        totals.set(`${algorithm} ${band}`, {
          requests: total.requests + errors.requests,
          admitted: total.admitted + errors.admitted,
          wronglyAllowed: total.wronglyAllowed + errors.wronglyAllowed,
          wronglyRefused: total.wronglyRefused + errors.wronglyRefused,
          maxInWindow: Math.max(total.maxInWindow, errors.maxInWindow),
          logAdmitted: total.logAdmitted + logAdmitted,
        });
        if (trace === "poisson" && algorithm !== "sliding-log") {
          const counted = replay(registry[algorithm], client.times, params, true);
          wrongCloudflare.set(algorithm, (wrongCloudflare.get(algorithm) ?? 0) + counted.wronglyAllowed + counted.wronglyRefused);
        }
      }
    }
    ctx.progress.step(`trace: ${trace}, ${clients} clients × ${windows} windows, ${requests} requests`);
    for (const algorithm of algorithms) {
      let wronglyAllowed = 0;
      for (const { band } of BANDS) {
        const t = totals.get(`${algorithm} ${band}`);
        if (t === undefined) continue;
        wronglyAllowed += t.wronglyAllowed;
        rows.push({
          trace,
          algorithm,
          band,
          requests: t.requests,
          wronglyAllowed: t.wronglyAllowed / t.requests,
          wronglyRefused: t.wronglyRefused / t.requests,
          maxInWindow: t.maxInWindow / limit,
          admittedVsLog: t.admitted / t.logAdmitted,
        });
      }
      if (trace === "poisson") {
        wronglyAllowedOverall.push({ algorithm, share: wronglyAllowed / requests });
        if (algorithm !== "sliding-log") cloudflare.push({ algorithm, wrong: (wrongCloudflare.get(algorithm) ?? 0) / requests });
      }
    }
  }
  return measured({ clients, windows, limit, windowMs, seed: SEED, rows, wronglyAllowedOverall, cloudflare, chartRate, points });
}

function paramsFor(limit: number, windowMs: number, buckets = 1) {
  return { limit, windowMs, burst: limit, buckets };
}

/** Records the trailing count once per second of trace time, over the trace's first ten windows. */
function sampler(algorithm: AlgorithmName, points: TracePoint[], windowMs: number) {
  let start: number | undefined;
  let next = 0;
  return (t: number, inWindow: number) => {
    start ??= t;
    const s = Math.floor((t - start) / 1000);
    if (s >= next && t - start < 10 * windowMs) {
      points.push({ algorithm, t: s, inWindow });
      next = s + 1;
    }
  };
}
