/**
 * @module Builds the Worker exactly as `wrangler deploy` would upload it (`wrangler deploy
 * --dry-run --outdir`, offline, with wrangler.toml's settings, `minify` included) and sizes it:
 * raw and gzipped, the figure Cloudflare's size limits apply to.
 */
import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));

/** One file of the bundle. */
export interface BundleFile {
  /** Path relative to the output directory. */
  path: string;
  bytes: number;
  gzipBytes: number;
}

/** The built Worker. */
export interface WorkerBuild {
  files: BundleFile[];
  bytes: number;
  gzipBytes: number;
}

/**
 * Runs `wrangler deploy --dry-run --outdir <outdir>` in `project` (the repository by default) and
 * sizes the modules it wrote (`.js`, `.mjs`, `.wasm`; the source maps are not uploaded). Rejects
 * with wrangler's output when the build fails, its `[build]` check of wrangler.toml included.
 *
 * @example
 * const { gzipBytes } = await buildWorker(await mkdtemp(join(tmpdir(), "ratewall-build-")));
 */
export async function buildWorker(outdir: string, project = root): Promise<WorkerBuild> {
  const wrangler = join(root, "node_modules/wrangler/bin/wrangler.js");
  // No telemetry: the build must work offline.
  const env = { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" };
  await run(process.execPath, [wrangler, "deploy", "--dry-run", "--outdir", outdir], { cwd: project, env, maxBuffer: 16 << 20 });
  const paths = (await readdir(outdir, { recursive: true })).filter((path) => /\.(m?js|wasm)$/.test(path)).sort();
  const contents = await Promise.all(paths.map((path) => readFile(join(outdir, path))));
  const files = paths.map((path, i) => ({ path, bytes: contents[i]!.length, gzipBytes: gzipSync(contents[i]!).length }));
  // The total as wrangler's "Total Upload" figure has it: the modules together, gzipped at zlib's
  // default level (wrangler's getSize), which is the figure the README's budget speaks of.
  return { files, bytes: sum(files.map((file) => file.bytes)), gzipBytes: gzipSync(Buffer.concat(contents)).length };
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** `12.3 KiB` */
export function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}
