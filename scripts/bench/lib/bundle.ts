/**
 * @module Builds each Worker for Miniflare and measures its size. Two builders:
 * - `wrangler`: `wrangler deploy --dry-run --minify --outdir`, offline; the bundle is exactly the
 *   deployable one and the size is the one wrangler prints ("Total Upload: … / gzip: …"). Used
 *   by the full run, whose report is committed.
 * - `esbuild`: the same esbuild settings wrangler uses for a deploy, called directly, sizes from
 *   zlib. About a hundred times faster than starting wrangler, for `--quick` and the smoke test.
 */
import { execFile } from "node:child_process";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { WRANGLER_ESBUILD_OPTIONS } from "../../deploy/esbuild-options.ts";
import { parse } from "smol-toml";
import { fromRoot, repoRoot } from "./paths.ts";

/** Which builder made a bundle. */
export type Bundler = "wrangler" | "esbuild";

/** A built Worker, ready for Miniflare. */
export interface WorkerBundle {
  name: string;
  bundler: Bundler;
  /** Absolute path of the bundled module. */
  scriptPath: string;
  /** Minified size, KiB. */
  uploadKiB: number;
  /** Minified and gzipped size, KiB. */
  gzipKiB: number;
  compatibilityDate: string;
  compatibilityFlags: string[];
}

/** What to build: a Worker's name and entry file, relative to the repository root. */
export interface BundleTarget {
  name: string;
  entry: string;
  /** Build from the project's own `wrangler.toml` (ratewall itself). */
  projectConfig?: boolean;
  /** Imports left as they are, for modules served beside the bundle (esbuild only). */
  external?: string[];
  /** Overrides the project's `keep_names` (section 10's peer as wrangler's defaults build it). */
  keepNames?: boolean;
}

const run = promisify(execFile);

/**
 * Bundles one Worker into `outDir/<name>/`.
 *
 * @example
 * const floor = await bundleWorker({ name: "floor", entry: "scripts/bench/workers/floor.ts" }, dir, "esbuild");
 */
export async function bundleWorker(target: BundleTarget, outDir: string, bundler: Bundler): Promise<WorkerBundle> {
  const project = parse(await readFile(fromRoot("wrangler.toml"), "utf8")) as {
    compatibility_date: string;
    compatibility_flags?: string[];
    keep_names?: boolean;
  };
  const dir = join(outDir, target.name);
  await mkdir(dir, { recursive: true });
  // Same compatibility date and build settings as ratewall for every Worker, so the runtime and
  // the bundler's output are alike for all: the figures compare code, not settings.
  const compatibility = {
    compatibilityDate: project.compatibility_date,
    compatibilityFlags: target.projectConfig ? (project.compatibility_flags ?? []) : [],
  };
  const keepNames = target.keepNames ?? project.keep_names ?? true;
  const built = bundler === "wrangler" ? await withWrangler(target, dir, project.compatibility_date, keepNames) : await withEsbuild(target, dir, keepNames);
  return { name: target.name, bundler, ...built, ...compatibility };
}

async function withWrangler(target: BundleTarget, dir: string, compatibilityDate: string, keepNames: boolean) {
  const dist = join(dir, "dist");
  let config = fromRoot("wrangler.toml");
  if (!target.projectConfig) {
    config = join(dir, "wrangler.toml");
    const settings = [
      `name = "bench-${target.name}"`,
      `main = ${JSON.stringify(fromRoot(target.entry))}`,
      `compatibility_date = "${compatibilityDate}"`,
      `keep_names = ${keepNames}`,
    ];
    await writeFile(config, `${settings.join("\n")}\n`);
  }
  const { stdout, stderr } = await run(
    process.execPath,
    [fromRoot("node_modules/wrangler/bin/wrangler.js"), "deploy", "--dry-run", "--minify", "--outdir", dist, "--config", config],
    { cwd: repoRoot, env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" }, maxBuffer: 16 << 20 },
  );
  const size = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(stdout + stderr);
  if (!size) throw new Error(`wrangler did not report a size for ${target.name}:\n${stdout}\n${stderr}`);
  const script = (await readdir(dist)).find((file) => file.endsWith(".js"));
  if (!script) throw new Error(`wrangler wrote no .js bundle for ${target.name} in ${dist}`);
  return { scriptPath: join(dist, script), uploadKiB: Number(size[1]), gzipKiB: Number(size[2]) };
}

async function withEsbuild(target: BundleTarget, dir: string, keepNames: boolean) {
  const scriptPath = join(dir, "index.js");
  const external = [...WRANGLER_ESBUILD_OPTIONS.external, ...(target.external ?? [])];
  await build({ ...WRANGLER_ESBUILD_OPTIONS, keepNames, external, entryPoints: [fromRoot(target.entry)], outfile: scriptPath, absWorkingDir: repoRoot });
  const code = await readFile(scriptPath);
  return { scriptPath, uploadKiB: kib(code.length), gzipKiB: kib(gzipSync(code).length) };
}

function kib(bytes: number): number {
  return Math.round((bytes / 1024) * 100) / 100;
}
