/**
 * @module Serves a bundled Worker through Miniflare's API on a loopback port. On this machine
 * `wrangler dev`'s development proxy costs about ten times the Worker itself, so the bench never
 * goes through it (README.md, "Benchmarks").
 */
import { dirname } from "node:path";
import type { Readable } from "node:stream";
import { Miniflare } from "miniflare";
import { listenerPid } from "../../local/process-cpu.ts";
import type { WorkerBundle } from "./bundle.ts";

/** A Worker being served. */
export interface ServedWorker {
  /** `http://127.0.0.1:<port>` without a trailing slash. */
  url: string;
  /** The workerd process that serves it, for its CPU time. */
  pid: number;
  dispose(): Promise<void>;
}

/** What a served Worker may have beside its vars. */
export interface ServeOptions {
  handleRuntimeStdio?: (stdout: Readable, stderr: Readable) => void;
  analyticsEngineDatasets?: Record<string, { dataset: string }>;
  /** Opens workerd's inspector on this port, for a CPU profile (cpu-profile.ts). */
  inspectorPort?: number;
}

/**
 * Starts one Miniflare instance (its own workerd process) for `bundle` with `bindings`.
 * `handleRuntimeStdio` receives the Worker's stdout and stderr (by default they go to ours);
 * `analyticsEngineDatasets` binds workerd's local Analytics Engine; `inspectorPort` opens its inspector.
 *
 * @example
 * const worker = await serveWorker(bundle, { ORIGIN_URL: origin.url });
 * try { await fetch(worker.url); } finally { await worker.dispose(); }
 */
export async function serveWorker(bundle: WorkerBundle, bindings: Record<string, string>, options: ServeOptions = {}): Promise<ServedWorker> {
  const { handleRuntimeStdio, analyticsEngineDatasets, inspectorPort } = options;
  const mf = new Miniflare({
    host: "127.0.0.1",
    port: 0,
    ...(handleRuntimeStdio ? { handleRuntimeStdio } : {}),
    ...(inspectorPort ? { inspectorPort } : {}),
    ...workerOptions(bundle, bindings),
    ...(analyticsEngineDatasets ? { analyticsEngineDatasets } : {}),
  });
  try {
    const url = await mf.ready;
    const pid = await listenerPid(Number(url.port), "workerd");
    if (pid === undefined) throw new Error(`no workerd process of ours listens on ${url.origin}`);
    return { url: url.origin, pid, dispose: () => mf.dispose() };
  } catch (error) {
    await mf.dispose().catch(() => undefined);
    throw error;
  }
}

function workerOptions(bundle: WorkerBundle, bindings: Record<string, string>) {
  return {
    scriptPath: bundle.scriptPath,
    // workerd refuses module paths that climb out of its root with "..".
    modulesRoot: dirname(bundle.scriptPath),
    modules: true,
    // Every module here is ESM, also those a bundle imports (the CPU section's harness imports its Worker).
    modulesRules: [{ type: "ESModule" as const, include: ["**/*.js"] }],
    compatibilityDate: bundle.compatibilityDate,
    compatibilityFlags: bundle.compatibilityFlags,
    bindings,
  };
}
