/**
 * @module The ratewall Worker as a real workerd process: `src/index.ts` bundled once per test file
 * with the esbuild settings `wrangler deploy` uses and served by Miniflare's API on a loopback
 * port (the bench's own `bundleWorker` and `serveWorker`), its console output captured so that
 * tests can read the log lines.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleWorker, type WorkerBundle } from "../../../scripts/bench/lib/bundle.ts";
import { serveWorker as serveBundle } from "../../../scripts/bench/lib/miniflare.ts";

let bundled: Promise<WorkerBundle> | undefined;
let bundleDir: string | undefined;

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
  bundled ??= mkdtemp(join(tmpdir(), "ratewall-worker-")).then((dir) => {
    bundleDir = dir;
    return bundleWorker({ name: "ratewall", entry: "src/index.ts", projectConfig: true }, dir, "esbuild");
  });
  let output = "";
  const served = await serveBundle(await bundled, bindings, {
    handleRuntimeStdio(stdout, stderr) {
      stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
      stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    },
  });
  return { ...served, output: () => output };
}

/** One request to the Worker as a client behind Cloudflare: `CF-Connecting-IP` set. */
export async function visit(worker: ServedWorker, path: string, ip: string, headers: Record<string, string> = {}) {
  const started = performance.now();
  const res = await fetch(`${worker.url}${path}`, { headers: { "cf-connecting-ip": ip, ...headers } });
  const body = await res.text();
  return { status: res.status, body, headers: res.headers, ms: performance.now() - started };
}

/** Removes the bundle's directory; a test file's `afterAll` calls it once its Workers are disposed. */
export async function removeBundle(): Promise<void> {
  if (bundleDir) await rm(bundleDir, { recursive: true, force: true });
  bundled = bundleDir = undefined;
}
