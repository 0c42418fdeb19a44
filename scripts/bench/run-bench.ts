/**
 * @module Runs every section once, in order, on one stack, and writes the results. Used by the
 * CLI (index.ts) and by the smoke test. Each section is bounded by the profile; a section that
 * throws is recorded as skipped with its error, so one failure does not lose the others' data.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchContext, type Outcome, skipped } from "./lib/context.ts";
import { buildBundles, probeRatewall, type Upstream } from "./lib/fleet.ts";
import { createLoadPool } from "./lib/load.ts";
import { collectVersions, describeMachine } from "./lib/machine.ts";
import type { Profile } from "./lib/profile.ts";
import { createProgress } from "./lib/progress.ts";
import type { BenchResults } from "./lib/results.ts";
import { startStack } from "./lib/stack.ts";
import { createWorkerPool, type WorkerPool } from "./lib/worker-pool.ts";
import { writeOutputs } from "./lib/write-outputs.ts";
import { measureAccuracy } from "./sections/accuracy.ts";
import { measureBundleSizes } from "./sections/bundle-size.ts";
import { measureCpu } from "./sections/cpu.ts";
import { measureEdgeBurst } from "./sections/edge-burst.ts";
import { measureMemory } from "./sections/memory.ts";
import { measurePolicy } from "./sections/policy.ts";
import { measureRoundTrips } from "./sections/round-trips.ts";
import { measureShimVsRedis } from "./sections/shim-vs-redis.ts";
import { measureThroughput } from "./sections/throughput.ts";
import { measureTrace } from "./sections/trace.ts";

/** What to run and where to write it. */
export interface RunOptions {
  profile: Profile;
  /** Receives results.json, README.md and the SVGs. */
  outDir: string;
  /** Shown in the report, e.g. `npm run bench -- --quick`. */
  command: string;
  /** No progress line (tests). */
  quiet?: boolean;
  /** Also write CPU profiles of the shim (section 3) and of the Workers (section 10) here. */
  cpuProfilesDir?: string;
}

/**
 * Runs the bench and writes its outputs; resolves with the results.
 *
 * @example
 * await runBench({ profile: profiles.quick, outDir: "bench", command: "npm run bench -- --quick" });
 */
export async function runBench(options: RunOptions): Promise<BenchResults> {
  const started = performance.now();
  const date = new Date().toISOString();
  const machine = describeMachine();
  const progress = createProgress(options.quiet);
  const workDir = await mkdtemp(join(tmpdir(), "ratewall-bench-"));
  try {
    progress.step(`bundling the five Workers with ${options.profile.bundler}`);
    const bundles = await buildBundles(join(workDir, "bundles"), options.profile.bundler);
    progress.step("starting redis-server, the shim and the origin");
    const stack = await startStack();
    const load = createLoadPool();
    let workers: WorkerPool | undefined;
    try {
      const keyPrefix = `b${randomBytes(3).toString("hex")}`;
      const upstream: Upstream = {
        originUrl: stack.origin.url,
        restUrl: stack.rest.url,
        token: stack.rest.token,
        accuracyLimit: options.profile.accuracy.limit,
      };
      workers = createWorkerPool(bundles, upstream, keyPrefix);
      const ratewallMissing = await checkRatewall(workers);
      const { cpuProfilesDir } = options;
      const ctx: BenchContext = { profile: options.profile, stack, bundles, upstream, ratewallMissing, keyPrefix, progress, load, workers, cpuProfilesDir };
      const guard = async <T>(run: () => Promise<Outcome<T>> | Outcome<T>): Promise<Outcome<T>> => {
        try {
          return await run();
        } catch (error) {
          // undici's "fetch failed" says why only in its cause (a reset, a refused connection…).
          const cause = (error as Error).cause;
          return skipped(
            `failed: ${(error as Error).stack ?? String(error)}${cause === undefined ? "" : `\ncause: ${String((cause as Error).stack ?? cause)}`}`,
          );
        }
      };
      const sections: BenchResults["sections"] = {
        bundles: await guard(() => measureBundleSizes(ctx)),
        roundTrips: await guard(() => measureRoundTrips(ctx)),
        throughput: await guard(() => measureThroughput(ctx)),
        shimVsRedis: await guard(() => measureShimVsRedis(ctx)),
        accuracy: await guard(() => measureAccuracy(ctx)),
        edgeBurst: await guard(() => measureEdgeBurst(ctx)),
        memory: await guard(() => measureMemory(ctx)),
        trace: await guard(() => measureTrace(ctx)),
        policy: await guard(() => measurePolicy(ctx)),
        cpu: await guard(() => measureCpu(ctx)),
      };
      const missing: Record<string, string> = ratewallMissing ? { worker: ratewallMissing } : {};
      const results: BenchResults = {
        meta: {
          date,
          command: options.command,
          profile: options.profile,
          durationSeconds: Math.round((performance.now() - started) / 100) / 10,
          machine,
          versions: await collectVersions(),
          missing,
        },
        sections,
      };
      progress.step("writing results.json, README.md and the charts");
      await writeOutputs(results, options.outDir);
      progress.done(`done in ${results.meta.durationSeconds} s: ${options.outDir}`);
      return results;
    } finally {
      await workers?.close();
      await load.close();
      await stack.close();
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

async function checkRatewall(workers: WorkerPool): Promise<string | undefined> {
  try {
    return await probeRatewall(await workers.get("ratewall"));
  } catch (error) {
    return `src/index.ts failed the probe: ${(error as Error).message}`;
  }
}
