/**
 * @module What every section receives, and the shape of a section's outcome: measured data, or
 * skipped with the reason (a section that threw, for example).
 */
import type { Bundles, Upstream } from "./fleet.ts";
import type { LoadPool } from "./load.ts";
import type { Profile } from "./profile.ts";
import type { Progress } from "./progress.ts";
import type { Stack } from "./stack.ts";
import type { WorkerPool } from "./worker-pool.ts";

/** The running stack and everything built for this run. */
export interface BenchContext {
  profile: Profile;
  stack: Stack;
  bundles: Bundles;
  /** The stack as the Workers see it. */
  upstream: Upstream;
  /** Undefined when ratewall's Worker limits; otherwise why it cannot be measured yet. */
  ratewallMissing: string | undefined;
  /** Unique per run: keeps this run's Redis keys apart from any other's. */
  keyPrefix: string;
  progress: Progress;
  /** autocannon in worker threads. */
  load: LoadPool;
  /** The Workers, started on first use and shared between sections. */
  workers: WorkerPool;
  /** Where sections 3 and 10 write CPU profiles (`--cpu-profiles DIR`); none without it. */
  cpuProfilesDir?: string;
}

/** A section's result. */
export type Outcome<T> = { status: "ok"; data: T } | { status: "skipped"; reason: string };

/** Wraps `data` as a measured outcome. */
export function measured<T>(data: T): Outcome<T> {
  return { status: "ok", data };
}

/** An outcome for a section that could not run. */
export function skipped<T>(reason: string): Outcome<T> {
  return { status: "skipped", reason };
}
