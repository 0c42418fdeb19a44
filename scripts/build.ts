/**
 * @module `npm run build`: the deployable bundle, built offline by `wrangler deploy --dry-run`
 * into dist/worker/, its size (raw and gzipped, the figure Cloudflare's size limits apply to) and
 * the budget README.md states for it ("Deploy"; `npm test` enforces it).
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { readBudget } from "./deploy/budget.ts";
import { buildWorker, kib } from "./deploy/build-worker.ts";

const outdir = "dist/worker";

// wrangler writes into the folder without emptying it: a file of an earlier build would be sized too.
rmSync(outdir, { recursive: true, force: true });
const build = await buildWorker(outdir).catch((error: { stdout?: string; stderr?: string }) => {
  console.error(`${error.stdout ?? ""}${error.stderr ?? String(error)}`);
  process.exit(1);
});
for (const file of build.files) console.log(`${join(outdir, file.path)}: ${kib(file.bytes)} (gzip ${kib(file.gzipBytes)})`);
const budget = readBudget(readFileSync("README.md", "utf8"));
console.log(`bundle: ${kib(build.bytes)} raw, ${kib(build.gzipBytes)} gzipped (budget ${kib(budget)} gzipped)`);
