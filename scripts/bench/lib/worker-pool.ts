/**
 * @module The Workers of one run, started on first use and shared between sections (each
 * Miniflare start costs a workerd process and a second or more on a busy machine), all disposed
 * at the end. Sections keep their counters apart by route and client, not by instance.
 */
import { type Bundles, serveKind, type Upstream, type WorkerKind } from "./fleet.ts";
import type { ServedWorker } from "./miniflare.ts";

/** Hands out running Workers. */
export interface WorkerPool {
  /**
   * The `instance`-th Worker of `kind` (0 unless a section needs two processes of one kind),
   * on the run's upstream, or on `via` (a named alternative, e.g. the byte-counting relay).
   */
  get(kind: WorkerKind, options?: { instance?: number; via?: { name: string; upstream: Upstream } }): Promise<ServedWorker>;
  close(): Promise<void>;
}

/**
 * Creates an empty pool for `bundles` on `upstream`.
 *
 * @example
 * const workers = createWorkerPool(bundles, upstream, keyPrefix);
 * const ratewall = await workers.get("ratewall");
 */
export function createWorkerPool(bundles: Bundles, upstream: Upstream, keyPrefix: string): WorkerPool {
  const running = new Map<string, Promise<ServedWorker>>();
  return {
    get(kind, { instance = 0, via } = {}) {
      const id = `${kind}#${instance}@${via?.name ?? "direct"}`;
      let worker = running.get(id);
      if (!worker) {
        worker = serveKind(kind, bundles[kind], via?.upstream ?? upstream, keyPrefix);
        running.set(id, worker);
      }
      return worker;
    },
    async close() {
      const workers = await Promise.allSettled(running.values());
      for (const worker of workers) if (worker.status === "fulfilled") await worker.value.dispose();
      running.clear();
    },
  };
}
