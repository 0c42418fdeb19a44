import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { renderAlgorithmGuide } from "./lib/algorithm-guide.ts";
import { profiles } from "./lib/profile.ts";
import type { BenchResults } from "./lib/results.ts";
import { runBench } from "./run-bench.ts";

// The bench at its smallest size, so that it cannot rot: every section runs end to end and
// writes its outputs. Nothing here asserts a timing; only shapes, counts and consistency.
describe("npm run bench at its smallest size", () => {
  let outDir = "";
  let results: BenchResults;

  afterAll(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it("Should run every section and write results.json, README.md and the charts", async () => {
    outDir = await mkdtemp(join(tmpdir(), "ratewall-bench-test-"));
    results = await runBench({ profile: profiles.smoke, outDir, command: "vitest smoke", quiet: true });
    for (const [name, outcome] of Object.entries(results.sections)) {
      expect(outcome.status === "ok" ? "ok" : `${name}: ${outcome.reason}`).toBe("ok");
    }
    const files = await readdir(outDir);
    expect(files).toEqual(expect.arrayContaining(["results.json", "README.md", "throughput.svg", "edge-burst.svg", "bundles.svg"]));
    const onDisk = JSON.parse(await readFile(join(outDir, "results.json"), "utf8")) as BenchResults;
    expect(onDisk.meta.machine.cpus).toBeGreaterThan(0);
    expect(onDisk.meta.versions.miniflare).toMatch(/^\d+\.\d+/);
    expect(onDisk.meta.missing).toEqual({});
  }, 180_000);

  it("Should link every chart from the report, each a non-empty SVG", async () => {
    const report = await readFile(join(outDir, "README.md"), "utf8");
    expect(report).toContain("## Summary");
    expect(report).toContain("medians of paired per-round ratios");
    expect(report).toContain("vitest smoke");
    const charts = (await readdir(outDir)).filter((file) => file.endsWith(".svg"));
    expect(charts.length).toBeGreaterThanOrEqual(6);
    for (const chart of charts) {
      expect(report).toContain(`](${chart})`);
      expect(await readFile(join(outDir, chart), "utf8")).toMatch(/^<svg[^>]*>.*<\/svg>$/s);
    }
  });

  it("Should render the README's algorithm guide with a row of measured figures for every algorithm", () => {
    const guide = renderAlgorithmGuide(results) ?? "";
    for (const algorithm of ["sliding-window", "sliding-log", "token-bucket", "fixed-window", "sliding-window-approx"]) {
      expect(guide).toMatch(new RegExp(`\\| \`${algorithm}\` \\| \\d+\\.\\d{3}% \\| \\d+\\.\\d{3}% \\| \\d+\\.\\d{2}× \\| \\d+\\.\\d{2}× \\| \\d+ B`));
    }
  });

  it("Should count one REST request per allowed decision for ratewall and answer every request", () => {
    if (results.sections.roundTrips.status !== "ok") throw new Error("round trips not measured");
    const allowed = results.sections.roundTrips.data.rows.filter((row) => row.scenario === "allowed");
    expect(allowed.length).toBeGreaterThan(0);
    for (const row of allowed) expect(row.requests).toBeGreaterThan(0);
    if (results.sections.throughput.status !== "ok") throw new Error("throughput not measured");
    const contenders = results.sections.throughput.data.rows.map((row) => row.contender);
    expect(contenders).toEqual(["pass-through", "floor", "lean-1", "ratewall-1", "ratewall-2", "peer-1", "peer-2"]);
    for (const row of results.sections.throughput.data.rows) {
      expect(row.rps).toBeGreaterThan(0);
      expect(row.non200 + row.errors).toBe(0);
      // Every request crosses workerd, the origin in the main thread, and Redis unless it is the pass-through.
      expect(row.cpu.workerd).toBeGreaterThan(0);
      expect(row.cpu.shimAndOrigin).toBeGreaterThan(0);
      if (row.contender !== "pass-through") expect(row.cpu.redis).toBeGreaterThan(0);
    }
    // The floor against the peer, with one rule and two: the bound on any lead over the peer.
    const bounds = results.sections.throughput.data.ratios.filter((r) => r.worker === "floor").map((r) => `${r.versus} ${r.rules}`);
    expect(bounds).toEqual(["peer 1", "peer 2"]);
    // lean against the floor and the peer: the decision's own cost, and the bound on any Worker making it.
    const lean = results.sections.throughput.data.ratios.filter((r) => r.worker === "lean").map((r) => r.versus);
    expect(lean).toEqual(["floor", "peer"]);
  });

  it("Should account for every request of the accuracy test, and admit exactly the limit", () => {
    if (results.sections.accuracy.status !== "ok") throw new Error("accuracy not measured");
    const { rows, requests, limit } = results.sections.accuracy.data;
    for (const row of rows) {
      expect(row.admitted + row.refused + row.other).toBe(requests);
      expect({ contender: row.contender, algorithm: row.algorithm, admitted: row.admitted }).toEqual({
        contender: row.contender,
        algorithm: row.algorithm,
        admitted: limit,
      });
    }
  });

  it("Should measure the ratewall shim, the peer shim and direct Redis at c=1 and c=50 with the same EVALSHA, every request answered", () => {
    if (results.sections.shimVsRedis.status !== "ok") throw new Error("shim section not measured");
    const { rows } = results.sections.shimVsRedis.data;
    expect(rows.map((row) => row.concurrency)).toEqual([1, 50]);
    for (const row of rows) {
      for (const path of ["ratewall-shim", "peer-shim", "direct"] as const) {
        expect(row.paths[path].rps).toBeGreaterThan(0);
        expect(row.paths[path].p50).toBeGreaterThan(0);
      }
      expect(row.overPeer).toBeCloseTo(row.paths["ratewall-shim"].rps / row.paths["peer-shim"].rps, 6);
    }
  });

  it("Should time every Worker's CPU with its fetches answered in-process: one REST request per allowed decision, none for a refusal from the block cache", () => {
    if (results.sections.cpu.status !== "ok") throw new Error("cpu not measured");
    const rows = results.sections.cpu.data.rows;
    expect(Object.fromEntries(rows.map((row) => [row.contender, [row.restCalls, row.status]]))).toEqual({
      "pass-through": [0, 200],
      floor: [1, 200],
      "lean-1": [1, 200],
      "ratewall-1": [1, 200],
      "ratewall-2": [1, 200],
      "ratewall-refused": [0, 429],
      "peer-1": [1, 200],
      "peer-1-keep-names": [1, 200],
      "peer-2": [1, 200],
    });
    for (const row of rows) expect(row.cpuUs).toBeGreaterThan(0);
    const ratios = results.sections.cpu.data.ratios.map((r) => `${r.contender} / ${r.versus}`);
    expect(ratios).toEqual(
      expect.arrayContaining([
        "ratewall-1 / peer-1",
        "ratewall-1 / peer-1-keep-names",
        "ratewall-refused / pass-through",
        "floor / peer-1",
        "lean-1 / peer-1",
        "ratewall-1 / lean-1",
      ]),
    );
  });

  it("Should decide static lists with no Redis call, and dynamic lists and tiers in one, where the peer's tiers take two", () => {
    if (results.sections.policy.status !== "ok") throw new Error("policy not measured");
    const requests = Object.fromEntries(results.sections.policy.data.rows.map((row) => [`${row.contender} ${row.scenario}`, row.requests]));
    expect(requests).toEqual({ "ratewall static deny": 0, "ratewall dynamic deny": 1, "ratewall dynamic allow": 1, "ratewall tiers": 1, "peer tiers": 2 });
  });
});
