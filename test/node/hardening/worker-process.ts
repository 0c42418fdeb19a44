/**
 * @module The ratewall Worker as a real workerd process: `src/index.ts` bundled once with esbuild
 * (what wrangler runs under the hood), served by Miniflare's API on a loopback port, its console
 * output captured so that tests can read the log lines.
 */
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { parse } from "smol-toml";
import { repoRoot } from "./processes.ts";

let bundled: Promise<{ scriptPath: string; compatibilityDate: string }> | undefined;

/** Bundles the Worker once per test file (about a second). */
export function bundleWorker(): Promise<{ scriptPath: string; compatibilityDate: string }> {
  return (bundled ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), "ratewall-worker-"));
    const scriptPath = join(dir, "index.js");
    await build({ entryPoints: [join(repoRoot, "src/index.ts")], outfile: scriptPath, bundle: true, format: "esm", platform: "neutral", target: "es2022", conditions: ["workerd", "worker", "browser"], mainFields: ["module", "main"], logLevel: "error" });
    const toml = parse(await readFile(join(repoRoot, "wrangler.toml"), "utf8")) as { compatibility_date: string };
    return { scriptPath, compatibilityDate: toml.compatibility_date };
  })());
}

/** A Worker being served. */
export interface ServedWorker {
  url: string;
  /** Everything the Worker printed (its log lines), stdout and stderr. */
  output(): string;
  dispose(): Promise<void>;
}

/**
 * Serves the Worker with these bindings (strings, as `[vars]` and secrets are).
 *
 * @example
 * const worker = await serveWorker({ UPSTASH_REDIS_REST_URL: shim.url, UPSTASH_REDIS_REST_TOKEN: token, ORIGIN_URL: origin.url });
 */
export async function serveWorker(bindings: Record<string, string>): Promise<ServedWorker> {
  const { scriptPath, compatibilityDate } = await bundleWorker();
  let output = "";
  const mf = new Miniflare({
    scriptPath,
    // workerd refuses module paths that climb out of its root with "..".
    modulesRoot: dirname(scriptPath),
    modules: true,
    compatibilityDate,
    bindings,
    host: "127.0.0.1",
    port: 0,
    handleRuntimeStdio(stdout, stderr) {
      stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
      stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    },
  });
  const url = (await mf.ready).origin;
  return { url, output: () => output, dispose: () => mf.dispose() };
}

/** One request to the Worker as a client behind Cloudflare: `CF-Connecting-IP` set. */
export async function visit(worker: ServedWorker, path: string, ip: string, headers: Record<string, string> = {}) {
  const started = performance.now();
  const res = await fetch(`${worker.url}${path}`, { headers: { "cf-connecting-ip": ip, ...headers } });
  const body = await res.text();
  return { status: res.status, body, headers: res.headers, ms: performance.now() - started };
}
