/**
 * @module Section 4: accuracy under concurrency. One client sends `requests` requests at
 * `concurrency`, split evenly over two Worker processes (two Miniflare instances) that share one
 * Redis, on a route limited to `limit` per hour: how many were admitted, per algorithm, for
 * ratewall and for the peer. An exact limiter admits exactly `limit`.
 */
import type { AlgorithmName } from "../../../src/limiter/types.ts";
import { clientIps } from "../lib/client-ips.ts";
import { type BenchContext, measured, type Outcome } from "../lib/context.ts";
import { algorithms, peerAlgorithms } from "../lib/scenarios.ts";

/** One limiter with one algorithm. */
export interface AccuracyRow {
  contender: "ratewall" | "peer";
  algorithm: AlgorithmName;
  /** 200 answers. */
  admitted: number;
  /** 429 answers. */
  refused: number;
  /** Any other answer or socket error (should be 0). */
  other: number;
}

/** Section 4's data. */
export interface AccuracyData {
  requests: number;
  concurrency: number;
  limit: number;
  workers: 2;
  rows: AccuracyRow[];
}

/**
 * Runs the accuracy test for every algorithm of each available limiter.
 *
 * @example
 * const outcome = await measureAccuracy(ctx);
 */
export async function measureAccuracy(ctx: BenchContext): Promise<Outcome<AccuracyData>> {
  const contenders: Array<"ratewall" | "peer"> = ctx.ratewallMissing ? ["peer"] : ["ratewall", "peer"];
  const { requests, concurrency, limit } = ctx.profile.accuracy;
  const nextClient = clientIps();
  const rows: AccuracyRow[] = [];
  for (const contender of contenders) {
    const pair = [await ctx.workers.get(contender), await ctx.workers.get(contender, { instance: 1 })];
    for (const algorithm of contender === "peer" ? peerAlgorithms : algorithms) {
      ctx.progress.step(`accuracy: ${contender} ${algorithm}, ${requests} requests at c=${concurrency} over 2 Workers`);
      const headers = { "cf-connecting-ip": nextClient() };
      const halves = await Promise.all(
        pair.map((worker) => ctx.load.run({ url: `${worker.url}/acc/${algorithm}`, connections: concurrency / 2, amount: requests / 2, headers })),
      );
      const count = (status: string) => halves.reduce((sum, half) => sum + (half.statuses[status] ?? 0), 0);
      rows.push({ contender, algorithm, admitted: count("200"), refused: count("429"), other: requests - count("200") - count("429") });
    }
  }
  return measured({ requests, concurrency, limit, workers: 2, rows });
}
