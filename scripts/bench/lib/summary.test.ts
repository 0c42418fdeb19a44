import { describe, expect, it } from "vitest";
import type { RoundTripRow } from "../sections/round-trips.ts";
import type { ThroughputRatio, ThroughputRow } from "../sections/throughput.ts";
import type { BenchResults } from "./results.ts";
import { summaryTable } from "./summary.ts";

const sectionNames = ["roundTrips", "throughput", "shimVsRedis", "accuracy", "edgeBurst", "memory", "bundles", "trace", "policy", "cpu"] as const;

/** Results with every section skipped but those given. */
function resultsWith(sections: Partial<Record<(typeof sectionNames)[number], unknown>>): BenchResults {
  const skipped = Object.fromEntries(sectionNames.map((name) => [name, { status: "skipped", reason: "not part of this test" }]));
  return { meta: {}, sections: { ...skipped, ...sections } } as unknown as BenchResults;
}

/** The summary's line for the measure that starts with `measure`. */
function line(results: BenchResults, measure: string): string {
  const found = summaryTable(results)
    .split("\n")
    .find((row) => row.startsWith(`| ${measure}`));
  if (found === undefined) throw new Error(`no summary row starts with ${measure}`);
  return found;
}

const roundTrip = (contender: RoundTripRow["contender"], scenario: RoundTripRow["scenario"], wireBytes: number): RoundTripRow => ({
  contender,
  algorithm: contender === "floor" ? "none" : "fixed-window",
  scenario,
  requests: 1,
  bodyBytes: 0,
  wireBytes,
  statuses: {},
});

const cpu = { workerd: 100, shimAndOrigin: 50, redis: 10 };
const throughput = (contender: ThroughputRow["contender"], concurrency: number, rps: number): ThroughputRow => ({
  contender,
  concurrency,
  rps,
  p50: 1,
  p99: 2,
  meanMs: 1,
  non200: 0,
  errors: 0,
  cpu,
  rounds: [],
});
const versus = (against: ThroughputRatio["versus"], concurrency: number, rps: number): ThroughputRatio => ({
  worker: "ratewall",
  concurrency,
  rules: 1,
  versus: against,
  rps,
  rpsRange: [rps, rps],
  p50: 1,
  p99: 1,
  meanMs: 1,
});

describe("the summary table", () => {
  it("Should give ratewall's bytes on the wire over the peer's, and the large list's match time over the small one's", () => {
    const results = resultsWith({
      roundTrips: {
        status: "ok",
        data: { decisions: 1, rows: [roundTrip("ratewall", "allowed", 500), roundTrip("peer", "allowed", 1_000), roundTrip("floor", "allowed", 250)] },
      },
      policy: {
        status: "ok",
        data: {
          decisions: 1,
          rows: [],
          matchNs: [
            { entries: 10, ns: 100 },
            { entries: 10_000, ns: 300 },
          ],
        },
      },
    });
    expect(line(results, "Bytes on the wire")).toContain("ratewall/peer: allowed 0.50×");
    expect(line(results, "Static list match")).toContain("10,000 entries / 10: 3.00×");
  });

  it("Should compare ratewall with the peer where it says peer, and give the CPU row at the highest concurrency", () => {
    const rows = [1, 50].flatMap((c) => [throughput("floor", c, 2_000), throughput("ratewall-1", c, 1_000), throughput("peer-1", c, 800)]);
    const ratios = [1, 50].flatMap((c) => [versus("floor", c, 0.5), versus("peer", c, 1.25)]);
    const results = resultsWith({ throughput: { status: "ok", data: { secondsPerRound: 1, rounds: 1, warmupRequests: 0, rows, ratios } } });
    expect(line(results, "Worker at c=50, one rule")).toContain("req/s ratewall/floor 0.50× (rounds 0.50–0.50), /peer 1.25× (1.25–1.25)");
    expect(line(results, "CPU per request across the stack at c=50, one rule")).toContain("totals ratewall 160");
  });

  it("Should put each shim's added p50 in its own column, and give ratewall's bundle over the peer's", () => {
    const path = { rps: 1_000, p50: 0.2, p99: 0.5 };
    const shim = {
      concurrency: 1,
      paths: { "ratewall-shim": path, "peer-shim": path, direct: path },
      overPeer: 1,
      overPeerRange: [1, 1],
      overDirect: 1,
      overDirectRange: [1, 1],
      addedP50Ms: 0.1,
      peerAddedP50Ms: 0.5,
    };
    const bundles = {
      bundler: "esbuild",
      rows: [
        { worker: "ratewall", uploadKiB: 60, gzipKiB: 20 },
        { worker: "peer", uploadKiB: 120, gzipKiB: 40 },
        { worker: "floor", uploadKiB: 1, gzipKiB: 1 },
        { worker: "pass-through", uploadKiB: 1, gzipKiB: 1 },
      ],
    };
    const results = resultsWith({
      shimVsRedis: { status: "ok", data: { script: "", secondsPerRound: 1, rows: [shim] } },
      bundles: { status: "ok", data: bundles },
    });
    expect(line(results, "p50 the ratewall shim adds")).toContain("| +0.100 ms | +0.500 ms |");
    expect(line(results, "Worker bundle")).toContain("ratewall/peer 0.50×");
  });

  it("Should say why a section was skipped in one line, so that its row stays one row of the table", () => {
    const results = resultsWith({ cpu: { status: "skipped", reason: "workerd exited\n    at start (fleet.ts:1)" } });
    expect(line(results, "CPU per request")).toBe("| CPU per request | – | – | not measured: workerd exited |");
  });
});
