/**
 * @module One Vega-Lite spec per chart of the report, built from the results. A chart whose
 * section was skipped is simply not drawn.
 */
import type { TopLevelSpec } from "vega-lite";
import type { BenchResults } from "./results.ts";

/** A chart to render: its file name (in the output folder), title and spec. */
export interface Chart {
  file: string;
  title: string;
  spec: TopLevelSpec;
}

const schema = "https://vega.github.io/schema/vega-lite/v5.json";

/** Bars grouped along `x`, one bar per `group` value, as the unit spec of a chart. */
function groupedBars(x: string, group: string, y: string, yTitle: string, extra: { log?: boolean } = {}) {
  return {
    mark: "bar" as const,
    width: 360,
    height: 200,
    encoding: {
      x: { field: x, type: "nominal" as const, title: null, sort: null, axis: { labelAngle: 0 } },
      xOffset: { field: group, type: "nominal" as const, sort: null },
      y: { field: y, type: "quantitative" as const, title: yTitle, ...(extra.log ? { scale: { type: "symlog" as const } } : {}) },
      color: { field: group, type: "nominal" as const, sort: null, title: null },
    },
  };
}

/**
 * Every chart the results allow.
 *
 * @example
 * for (const chart of chartsFor(results)) await writeFile(chart.file, await renderSvg(chart.spec));
 */
export function chartsFor(results: BenchResults): Chart[] {
  const { sections } = results;
  const charts: Chart[] = [];
  if (sections.roundTrips.status === "ok") {
    const values = sections.roundTrips.data.rows.filter((row) => row.algorithm === "fixed-window" || row.contender === "floor");
    charts.push({
      file: "round-trips.svg",
      title: "Bytes on the wire to the REST endpoint per decision (fixed window; floor: one PING)",
      spec: { $schema: schema, data: { values }, ...groupedBars("scenario", "contender", "wireBytes", "wire bytes per decision") },
    });
  }
  if (sections.throughput.status === "ok") {
    const values = sections.throughput.data.rows.map((row) => ({ ...row, concurrency: `c=${row.concurrency}` }));
    charts.push({
      file: "throughput.svg",
      title: "Requests per second and p99 latency per Worker",
      spec: {
        $schema: schema,
        data: { values },
        hconcat: [groupedBars("concurrency", "contender", "rps", "requests / s"), groupedBars("concurrency", "contender", "p99", "p99 latency (ms)")],
      },
    });
  }
  if (sections.shimVsRedis.status === "ok") {
    const names = { "ratewall-shim": "ratewall shim", "peer-shim": "peer shim", direct: "direct (redis-benchmark)" } as const;
    const values = sections.shimVsRedis.data.rows.flatMap((row) =>
      (Object.keys(names) as Array<keyof typeof names>).map((path) => ({ concurrency: `c=${row.concurrency}`, path: names[path], rps: row.paths[path].rps })),
    );
    charts.push({
      file: "shim-vs-redis.svg",
      title: "One fixed-window decision by EVALSHA: the two shims and direct Redis",
      spec: { $schema: schema, data: { values }, ...groupedBars("concurrency", "path", "rps", "decisions / s") },
    });
  }
  if (sections.accuracy.status === "ok") {
    const { limit, requests } = sections.accuracy.data;
    charts.push({
      file: "accuracy.svg",
      title: `Admitted out of ${requests} (limit ${limit}, dashed), two Workers, one Redis`,
      spec: {
        $schema: schema,
        data: { values: sections.accuracy.data.rows },
        layer: [
          groupedBars("algorithm", "contender", "admitted", "admitted requests"),
          { mark: { type: "rule", strokeDash: [4, 3], color: "black" }, encoding: { y: { datum: limit } } },
        ],
      },
    });
  }
  if (sections.edgeBurst.status === "ok") {
    charts.push(edgeBurstChart(sections.edgeBurst.data));
  }
  if (sections.memory.status === "ok") {
    const values = sections.memory.data.rows.map((row) => ({ ...row, limit: `limit ${row.limit}` }));
    const bars = groupedBars("algorithm", "contender", "bytesAtLimit", "bytes (symmetric log scale)", { log: true });
    charts.push({
      file: "memory.svg",
      title: "Redis memory per client with its whole quota spent (MEMORY USAGE)",
      spec: {
        $schema: schema,
        data: { values },
        ...bars,
        encoding: { ...bars.encoding, column: { field: "limit", type: "nominal", title: null, sort: null } },
      },
    });
  }
  if (sections.bundles.status === "ok") {
    charts.push({
      file: "bundles.svg",
      title: "Worker bundle, minified and gzipped",
      spec: {
        $schema: schema,
        data: { values: sections.bundles.data.rows },
        mark: "bar",
        width: 300,
        height: 140,
        encoding: {
          y: { field: "worker", type: "nominal", title: null, sort: null },
          x: { field: "gzipKiB", type: "quantitative", title: "KiB gzipped" },
          color: { field: "worker", type: "nominal", legend: null, sort: null },
        },
      },
    });
  }
  if (sections.trace.status === "ok" && sections.trace.data.points.length > 0) charts.push(traceChart(sections.trace.data));
  return charts;
}

/** One over-limit client's admitted count in the trailing window over time, one line per algorithm, the limit dashed. */
function traceChart(data: Extract<BenchResults["sections"]["trace"], { status: "ok" }>["data"]): Chart {
  return {
    file: "trace.svg",
    title: `Admitted in the trailing ${data.windowMs / 1000} s: one client at ${data.chartRate.toFixed(2)}× its limit of ${data.limit} (dashed)`,
    spec: {
      $schema: schema,
      data: { values: data.points },
      width: 560,
      height: 240,
      layer: [
        {
          mark: { type: "line", interpolate: "step-after", strokeWidth: 1.2 },
          encoding: {
            x: { field: "t", type: "quantitative", title: "seconds since the client's first request" },
            y: { field: "inWindow", type: "quantitative", title: "admitted in the trailing window", scale: { zero: false } },
            color: { field: "algorithm", type: "nominal", sort: null, title: null },
          },
        },
        // Its own one-row data: otherwise the rule is drawn once per point.
        { data: { values: [{}] }, mark: { type: "rule", strokeDash: [4, 3], color: "black" }, encoding: { y: { datum: data.limit } } },
      ],
    },
  };
}

/** Admitted per 100 ms, one row per algorithm, with the fixed windows' edges dashed. */
function edgeBurstChart(data: Extract<BenchResults["sections"]["edgeBurst"], { status: "ok" }>["data"]): Chart {
  const { limit, windowMs, ratePerSecond, durationMs, offsetMs, points } = data;
  const edges: Array<{ algorithm: string; edge: number }> = [];
  for (const algorithm of new Set(points.map((p) => p.algorithm))) {
    for (let edge = windowMs - offsetMs; edge < durationMs; edge += windowMs) edges.push({ algorithm, edge });
  }
  return {
    file: "edge-burst.svg",
    title: `Admitted per 100 ms: one client steady at ${ratePerSecond}/s against ${limit} per ${windowMs} ms (dashed: window edges)`,
    spec: {
      $schema: schema,
      data: { values: [...points, ...edges] },
      facet: { row: { field: "algorithm", type: "nominal", title: null, sort: null } },
      spec: {
        width: 560,
        height: 70,
        layer: [
          {
            transform: [{ filter: "isValid(datum.admitted)" }, { calculate: "datum.t + 100", as: "t2" }],
            mark: { type: "bar", stroke: "white", strokeWidth: 0.5 },
            encoding: {
              x: { field: "t", type: "quantitative", title: "simulated time since the first request (ms)", scale: { domain: [0, durationMs] } },
              x2: { field: "t2" },
              y: { field: "admitted", type: "quantitative", title: "admitted" },
              y2: { datum: 0 },
              color: { field: "algorithm", type: "nominal", legend: null, sort: null },
            },
          },
          {
            transform: [{ filter: "isValid(datum.edge)" }],
            mark: { type: "rule", strokeDash: [4, 3], color: "black" },
            encoding: { x: { field: "edge", type: "quantitative" } },
          },
        ],
      },
    },
  };
}
