/**
 * @module Writes a run's outputs into one folder: `results.json`, one SVG per chart and the
 * Markdown report that links them; and the figures the top-level README.md shows.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { renderAlgorithmGuide } from "./algorithm-guide.ts";
import { chartsFor } from "./chart-specs.ts";
import { renderSvg } from "./charts.ts";
import { renderReport } from "./report.ts";
import { replaceBlock } from "./readme-block.ts";
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

/**
 * Rewrites the generated blocks of `readmePath` (the project's README.md) from `results`: the
 * algorithm guide. Fails, naming the file and marker, when a block is missing.
 *
 * @example
 * await writeReadmeBlocks(results, fromRoot("README.md"));
 */
export async function writeReadmeBlocks(results: BenchResults, readmePath: string): Promise<void> {
  const guide = renderAlgorithmGuide(results);
  if (guide === undefined) throw new Error("the algorithm guide needs the trace and memory sections, and this run lacks one");
  await writeFile(readmePath, replaceBlock(await readFile(readmePath, "utf8"), "algorithm-guide", guide, readmePath));
}
