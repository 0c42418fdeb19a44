/**
 * @module Writes a run's outputs into one folder: `results.json`, one SVG per chart and the
 * Markdown report that links them.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { chartsFor } from "./chart-specs.ts";
import { renderSvg } from "./charts.ts";
import { renderReport } from "./report.ts";
import type { BenchResults } from "./results.ts";

/**
 * Writes everything into `outDir` (created if needed).
 *
 * @example
 * await writeOutputs(results, "bench");
 */
export async function writeOutputs(results: BenchResults, outDir: string): Promise<void> {
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  const charts = chartsFor(results);
  for (const chart of charts) await writeFile(join(outDir, chart.file), await renderSvg({ ...chart.spec, title: chart.title }));
  await writeFile(join(outDir, "README.md"), renderReport(results, charts));
}
