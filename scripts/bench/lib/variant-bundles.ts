/**
 * @module Builds the Workers of a variants file (lib/source-variants.ts) for the tools that serve
 * them beside ratewall: `npm run bench:variants` (workerd's CPU under load) and `npm run
 * bench:latency -- --variants FILE` (each hop's latency at c=1). Each variant is a patched copy of
 * `src/` bundled as ratewall is (esbuild, the project's wrangler.toml).
 */
import { randomBytes } from "node:crypto";
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { bundleWorker, type WorkerBundle } from "./bundle.ts";
import { fromRoot } from "./paths.ts";
import { applyPatch, parseVariants } from "./source-variants.ts";

/** The built variants, in the file's order, and how to remove their copies. */
export interface VariantBundles {
  bundles: Map<string, WorkerBundle>;
  /** Removes every copy and bundle; the bundles cannot be served after it. */
  remove(): Promise<void>;
}

/**
 * Reads `file`, checks it (errors name the file and the variant) and builds each variant under
 * `node_modules/.cache/ratewall-variants/`, so the copies' bare imports (hono) resolve to the
 * project's packages. Nothing is left behind when a build fails.
 *
 * @example
 * const variants = await buildVariantBundles("scripts/bench/variants.example.json");
 * try { for (const [name, bundle] of variants.bundles) await serveKind("ratewall", bundle, upstream, name); } finally { await variants.remove(); }
 */
export async function buildVariantBundles(file: string): Promise<VariantBundles> {
  const spec = parseVariants(JSON.parse(await readFile(file, "utf8")), file);
  const workPath = `node_modules/.cache/ratewall-variants/${randomBytes(4).toString("hex")}`;
  const workDir = fromRoot(workPath);
  const remove = () => rm(workDir, { recursive: true, force: true });
  const bundles = new Map<string, WorkerBundle>();
  try {
    for (const [name, patches] of Object.entries(spec)) {
      const root = join(workDir, name);
      await cp(fromRoot("src"), join(root, "src"), { recursive: true });
      for (const patch of patches) {
        const path = join(root, "src", patch.file);
        await writeFile(path, applyPatch(await readFile(path, "utf8"), patch, name));
      }
      const entry = `${workPath}/${name}/src/index.ts`;
      bundles.set(name, await bundleWorker({ name, entry, projectConfig: true }, join(workDir, "bundles"), "esbuild"));
    }
  } catch (error) {
    await remove();
    throw error;
  }
  return { bundles, remove };
}
