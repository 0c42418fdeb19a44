/**
 * @module `npm run bench [-- --quick | --smoke] [--out DIR] [--bundler wrangler|esbuild] [--cpu-profiles DIR]`:
 * runs the benchmarks on loopback and writes `results.json`, `README.md` and the charts to
 * `bench/` (or DIR), and with `--cpu-profiles` the CPU profiles of the shim under load and of
 * each Worker's request path. A full run into `bench/` also rewrites the figures of the top-level README.md (its
 * `<!-- bench:… -->` blocks); `--readme` does only that, from `bench/results.json`.
 */
import { mkdir, readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { fromRoot } from "./lib/paths.ts";
import { type Profile, profiles } from "./lib/profile.ts";
import type { BenchResults } from "./lib/results.ts";
import { writeReadmeBlocks } from "./lib/write-outputs.ts";
import { runBench } from "./run-bench.ts";

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    smoke: { type: "boolean", default: false },
    out: { type: "string" },
    bundler: { type: "string" },
    "cpu-profiles": { type: "string" },
    readme: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});

if (values.help) {
  process.stdout.write(
    "npm run bench [-- --quick | --smoke] [--out DIR] [--bundler wrangler|esbuild] [--cpu-profiles DIR] | [-- --readme]\n" +
      "  full run: about a quarter of an hour; --quick: one to two minutes; --smoke: the test's size. Writes bench/ by default,\n" +
      "  and a full run into bench/ also rewrites README.md's generated figures; --readme rewrites only those, from bench/results.json.\n" +
      "  --cpu-profiles DIR also writes V8 CPU profiles there: the ratewall shim under section 3's load, and one round of each Worker of section 10.\n",
  );
} else if (values.readme) {
  const results = JSON.parse(await readFile(fromRoot("bench/results.json"), "utf8")) as BenchResults;
  await writeReadmeBlocks(results, fromRoot("README.md"));
} else {
  process.env.WRANGLER_SEND_METRICS = "false";
  const base = values.smoke ? profiles.smoke : values.quick ? profiles.quick : profiles.full;
  const bundler = values.bundler ?? base.bundler;
  if (!isBundler(bundler)) throw new Error(`--bundler must be wrangler or esbuild, got ${JSON.stringify(bundler)}`);
  const profile = { ...base, bundler };
  const args = process.argv.slice(2).join(" ");
  const cpuProfilesDir = values["cpu-profiles"] === undefined ? undefined : resolve(values["cpu-profiles"]);
  if (cpuProfilesDir) await mkdir(cpuProfilesDir, { recursive: true });
  const results = await runBench({
    profile,
    outDir: values.out ?? fromRoot("bench"),
    command: `npm run bench${args ? ` -- ${args}` : ""}`,
    ...(cpuProfilesDir ? { cpuProfilesDir } : {}),
  });
  if (profile.name === "full" && values.out === undefined) await writeReadmeBlocks(results, fromRoot("README.md"));
}

function isBundler(value: string): value is Profile["bundler"] {
  return value === "wrangler" || value === "esbuild";
}
