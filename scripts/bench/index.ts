/**
 * @module `npm run bench [-- --quick | --smoke] [--out DIR] [--bundler wrangler|esbuild]`: runs
 * the benchmarks on loopback and writes `results.json`, `README.md` and the charts to `bench/`
 * (or DIR).
 */
import { parseArgs } from "node:util";
import { fromRoot } from "./lib/paths.ts";
import { type Profile, profiles } from "./lib/profile.ts";
import { runBench } from "./run-bench.ts";

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    smoke: { type: "boolean", default: false },
    out: { type: "string" },
    bundler: { type: "string" },
    help: { type: "boolean", default: false },
  },
});

if (values.help) {
  process.stdout.write(
    "npm run bench [-- --quick | --smoke] [--out DIR] [--bundler wrangler|esbuild]\n" +
      "  full run: about 20 minutes; --quick: one to two minutes; --smoke: the test's size. Writes bench/ by default.\n",
  );
} else {
  process.env.WRANGLER_SEND_METRICS = "false";
  const base = values.smoke ? profiles.smoke : values.quick ? profiles.quick : profiles.full;
  const bundler = values.bundler ?? base.bundler;
  if (!isBundler(bundler)) throw new Error(`--bundler must be wrangler or esbuild, got ${JSON.stringify(bundler)}`);
  const profile = { ...base, bundler };
  const args = process.argv.slice(2).join(" ");
  await runBench({
    profile,
    outDir: values.out ?? fromRoot("bench"),
    command: `npm run bench${args ? ` -- ${args}` : ""}`,
  });
}

function isBundler(value: string): value is Profile["bundler"] {
  return value === "wrangler" || value === "esbuild";
}
