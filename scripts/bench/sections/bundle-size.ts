/**
 * @module Section 7: bundle size of each Worker, minified and gzipped, as `wrangler deploy
 * --dry-run --minify` reports it: what a cold start has to load. The bundles are the ones every
 * other section served.
 */
import { type BenchContext, measured, type Outcome } from "../lib/context.ts";
import { workerKinds, type WorkerKind } from "../lib/fleet.ts";

/** One Worker's bundle. */
export interface BundleRow {
  worker: WorkerKind;
  uploadKiB: number;
  gzipKiB: number;
}

/** Section 7's data. */
export interface BundleData {
  /** `wrangler`: sizes as `wrangler deploy --dry-run` prints them; `esbuild`: the same build, sized with zlib. */
  bundler: "wrangler" | "esbuild";
  /** Set while src/index.ts is not yet the limiter: its size is then not ratewall's. */
  ratewallNote?: string;
  rows: BundleRow[];
}

/**
 * Reports the sizes of the bundles built at the start of the run.
 *
 * @example
 * const outcome = measureBundleSizes(ctx);
 */
export function measureBundleSizes(ctx: BenchContext): Outcome<BundleData> {
  const rows = workerKinds.map((worker) => ({
    worker,
    uploadKiB: ctx.bundles[worker].uploadKiB,
    gzipKiB: ctx.bundles[worker].gzipKiB,
  }));
  const bundler = ctx.bundles.ratewall.bundler;
  return measured(ctx.ratewallMissing ? { bundler, ratewallNote: ctx.ratewallMissing, rows } : { bundler, rows });
}
