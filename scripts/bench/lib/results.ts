/**
 * @module The shape of `bench/results.json`: the run's facts, then one outcome per section.
 */
import type { AccuracyData } from "../sections/accuracy.ts";
import type { BundleData } from "../sections/bundle-size.ts";
import type { CpuData } from "../sections/cpu.ts";
import type { EdgeBurstData } from "../sections/edge-burst.ts";
import type { MemoryData } from "../sections/memory.ts";
import type { PolicyData } from "../sections/policy.ts";
import type { RoundTripData } from "../sections/round-trips.ts";
import type { ShimVsRedisData } from "../sections/shim-vs-redis.ts";
import type { ThroughputData } from "../sections/throughput.ts";
import type { TraceData } from "../sections/trace.ts";
import type { Outcome } from "./context.ts";
import type { Machine, Versions } from "./machine.ts";
import type { Profile } from "./profile.ts";

/** Everything one run measured. */
export interface BenchResults {
  meta: {
    /** ISO 8601, UTC, when the run started. */
    date: string;
    /** The command that produced these results. */
    command: string;
    profile: Profile;
    durationSeconds: number;
    machine: Machine;
    versions: Versions;
    /** Parts of ratewall that were not there, and why (empty on a complete run). */
    missing: Record<string, string>;
  };
  sections: {
    roundTrips: Outcome<RoundTripData>;
    throughput: Outcome<ThroughputData>;
    shimVsRedis: Outcome<ShimVsRedisData>;
    accuracy: Outcome<AccuracyData>;
    edgeBurst: Outcome<EdgeBurstData>;
    memory: Outcome<MemoryData>;
    bundles: Outcome<BundleData>;
    trace: Outcome<TraceData>;
    policy: Outcome<PolicyData>;
    cpu: Outcome<CpuData>;
  };
}

/** Section keys in report order. */
export type SectionName = keyof BenchResults["sections"];
