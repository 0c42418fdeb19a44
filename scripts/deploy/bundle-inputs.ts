/**
 * @module `npx tsx scripts/deploy/bundle-inputs.ts [REGEX]`: what each source file weighs in the
 * Worker's minified bundle (esbuild's metafile of src/index.ts, built with wrangler's settings),
 * heaviest first, optionally only the files REGEX matches. For finding what to keep out of the
 * bundle; the deploy check (size.test.ts) holds the total to its budget.
 */
import { build } from "esbuild";
import { WRANGLER_ESBUILD_OPTIONS } from "./esbuild-options.ts";

const only = process.argv[2] === undefined ? undefined : new RegExp(process.argv[2]);
const result = await build({ ...WRANGLER_ESBUILD_OPTIONS, entryPoints: ["src/index.ts"], write: false, metafile: true, outfile: "worker.js" });
const [output] = Object.values(result.metafile.outputs);
const rows = Object.entries(output?.inputs ?? {}).sort(([, a], [, b]) => b.bytesInOutput - a.bytesInOutput);
process.stdout.write(`total ${rows.reduce((sum, [, input]) => sum + input.bytesInOutput, 0)} bytes minified\n`);
for (const [file, input] of rows.filter(([file]) => !only || only.test(file)).slice(0, 40)) {
  process.stdout.write(`${String(input.bytesInOutput).padStart(7)} ${file}\n`);
}
