/**
 * @module One Vega-Lite spec per chart of the report, built from the results. A chart whose
 * section was skipped is simply not drawn.
 */
import type { TopLevelSpec } from "vega-lite";
import type { BenchResults } from "./results.ts";

/** A chart to render: its file name (in the output folder) and spec. */
export interface Chart {
  file: string;
  title: string;
  spec: TopLevelSpec;
}

const schema = "https://vega.github.io/schema/vega-lite/v5.json";

/**
 * Every chart the results allow.
 *
 * @example
 * for (const chart of chartsFor(results)) await writeFile(chart.file, await renderSvg(chart.spec));
 */
export function chartsFor(results: BenchResults): Chart[] {
  const { sections } = results;
  const charts: Chart[] = [];
  if (sections.throughput.status === "ok") {
    const values = sections.throughput.data.rows.map((row) => ({ ...row, concurrency: `c=${row.concurrency}` }));
    const bars = (field: "rps" | "p99", title: string) => ({
      mark: "bar" as const,
      width: 260,
      height: 200,
      encoding: {
        x: { field: "concurrency", type: "nominal" as const, title: null, sort: null },
        xOffset: { field: "contender", type: "nominal" as const, sort: null },
        y: { field, type: "quantitative" as const, title },
        color: { field: "contender", type: "nominal" as const, sort: null, title: "Worker" },
        tooltip: [{ field }],
      },
    });
    charts.push({
      file: "throughput.svg",
      title: "Requests per second and p99 latency per Worker",
      spec: { $schema: schema, data: { values }, hconcat: [bars("rps", "requests / s"), bars("p99", "p99 latency (ms)")] },
    });
  }
  if (sections.roundTrips.status === "ok") {
    const values = sections.roundTrips.data.rows.filter((row) => row.algorithm === "fixed-window");
    charts.push({
      file: "round-trips.svg",
      title: "Bytes on the wire to the REST endpoint per decision (fixed window)",
      spec: {
        $schema: schema,
        data: { values },
        mark: "bar",
        width: 300,
        height: 200,
        encoding: {
          x: { field: "scenario", type: "nominal", title: null, sort: null },
          xOffset: { field: "contender", type: "nominal" },
          y: { field: "wireBytes", type: "quantitative", title: "bytes per decision (both directions)" },
          color: { field: "contender", type: "nominal", title: "limiter" },
        },
      },
    });
  }
  if (sections.shimVsRedis.status === "ok") {
    const values = sections.shimVsRedis.data.rows.flatMap((row) => [
      { concurrency: `c=${row.concurrency}`, path: "through the shim", rps: row.shim.rps },
      { concurrency: `c=${row.concurrency}`, path: "direct ioredis", rps: row.direct.rps },
    ]);
    charts.push({
      file: "shim-vs-redis.svg",
      title: "One fixed-window decision by EVALSHA: through the shim vs direct",
      spec: {
        $schema: schema,
        data: { values },
        mark: "bar",
        width: 300,
        height: 200,
        encoding: {
          x: { field: "concurrency", type: "nominal", title: null, sort: null },
          xOffset: { field: "path", type: "nominal" },
          y: { field: "rps", type: "quantitative", title: "decisions / s" },
          color: { field: "path", type: "nominal", title: null },
        },
      },
    });
  }
  if (sections.accuracy.status === "ok") {
    const { limit } = sections.accuracy.data;
    charts.push({
      file: "accuracy.svg",
      title: `Admitted out of ${sections.accuracy.data.requests} (limit ${limit}), two Workers, one Redis`,
      spec: {
        $schema: schema,
        data: { values: sections.accuracy.data.rows },
        width: 320,
        height: 200,
        layer: [
          {
            mark: "bar",
            encoding: {
              x: { field: "algorithm", type: "nominal", title: null },
              xOffset: { field: "contender", type: "nominal" },
              y: { field: "admitted", type: "quantitative", title: "admitted requests" },
              color: { field: "contender", type: "nominal", title: "limiter" },
            },
          },
          { mark: { type: "rule", strokeDash: [4, 3], color: "black" }, encoding: { y: { datum: limit } } },
        ],
      },
    });
  }
  if (sections.edgeBurst.status === "ok") {
    const { limit, windowMs, ratePerSecond } = sections.edgeBurst.data;
    charts.push({
      file: "edge-burst.svg",
      title: `Admitted per 100 ms: a client steady at ${ratePerSecond}/s against ${limit} per ${windowMs} ms`,
      spec: {
        $schema: schema,
        data: { values: sections.edgeBurst.data.points },
        mark: "bar",
        width: 520,
        height: 70,
        encoding: {
          x: { field: "t", type: "quantitative", title: "simulated time since the first request (ms)", bin: { step: 100 } },
          y: { field: "admitted", type: "quantitative", title: "admitted" },
          row: { field: "algorithm", type: "nominal", title: null, sort: null },
          color: { field: "algorithm", type: "nominal", legend: null, sort: null },
        },
      },
    });
  }
  if (sections.memory.status === "ok") {
    const values = sections.memory.data.rows.map((row) => ({ ...row, limit: `limit ${row.limit}` }));
    charts.push({
      file: "memory.svg",
      title: "Redis memory per client with its whole quota spent (MEMORY USAGE, log scale)",
      spec: {
        $schema: schema,
        data: { values },
        mark: "bar",
        width: 260,
        height: 180,
        encoding: {
          column: { field: "limit", type: "nominal", title: null, sort: null },
          x: { field: "algorithm", type: "nominal", title: null, sort: null },
          xOffset: { field: "contender", type: "nominal" },
          y: { field: "bytesAtLimit", type: "quantitative", title: "bytes", scale: { type: "log" } },
          color: { field: "contender", type: "nominal", title: "limiter" },
        },
      },
    });
  }
  if (sections.bundles.status === "ok") {
    charts.push({
      file: "bundles.svg",
      title: "Worker bundle, minified and gzipped (wrangler deploy --dry-run)",
      spec: {
        $schema: schema,
        data: { values: sections.bundles.data.rows },
        mark: "bar",
        width: 300,
        height: 160,
        encoding: {
          y: { field: "worker", type: "nominal", title: null, sort: null },
          x: { field: "gzipKiB", type: "quantitative", title: "KiB gzipped" },
          color: { field: "worker", type: "nominal", legend: null, sort: null },
        },
      },
    });
  }
  return charts;
}
