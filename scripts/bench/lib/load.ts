/**
 * @module HTTP load from autocannon's programmatic API, run in long-lived worker threads
 * (load-thread.mjs): the load generator gets its own event loop, apart from the shim and the
 * origin in the bench's main thread, without paying a thread start per run (autocannon's own
 * `workers` option starts one each time).
 */
import { Worker } from "node:worker_threads";

/** One load run against one URL. */
export interface LoadOptions {
  url: string;
  connections: number;
  /** Seconds to run; use either this or `amount`. */
  seconds?: number;
  /** Total requests to send; use either this or `seconds`. */
  amount?: number;
  headers?: Record<string, string>;
  /** `GET` unless given; `body` is sent with every request. */
  method?: "GET" | "POST";
  body?: string;
}

/** What one load run measured. Latencies in ms, from every response's own time (µs resolution). */
export interface LoadResult {
  requests: number;
  /** Completed requests per second over the run. */
  rps: number;
  p50: number;
  p99: number;
  /** Responses by HTTP status, e.g. `{ "200": 100, "429": 1900 }`. */
  statuses: Record<string, number>;
  /** Socket errors and timeouts (no HTTP status). */
  errors: number;
}

/** A pool of load threads; runs in parallel take different threads. */
export interface LoadPool {
  run(options: LoadOptions): Promise<LoadResult>;
  close(): Promise<void>;
}

interface RawResult {
  duration: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
  p50: number;
  p99: number;
}

/**
 * Creates a pool that starts threads on demand (one per concurrent run).
 *
 * @example
 * const load = createLoadPool();
 * try { const { rps } = await load.run({ url, connections: 10, seconds: 2 }); } finally { await load.close(); }
 */
export function createLoadPool(): LoadPool {
  const idle: Worker[] = [];
  const all: Worker[] = [];
  let nextId = 0;
  const acquire = () => {
    const worker = idle.pop() ?? new Worker(new URL("./load-thread.mjs", import.meta.url));
    if (!all.includes(worker)) all.push(worker);
    return worker;
  };
  return {
    async run(options) {
      const worker = acquire();
      const id = nextId++;
      try {
        const raw = await new Promise<RawResult>((resolve, reject) => {
          const onMessage = (message: { id: number; result?: RawResult; error?: string }) => {
            if (message.id !== id) return;
            worker.off("message", onMessage);
            worker.off("error", reject);
            if (message.result) resolve(message.result);
            else reject(new Error(message.error));
          };
          worker.on("message", onMessage);
          worker.once("error", reject);
          worker.postMessage({ id, options: autocannonOptions(options) });
        });
        return toLoadResult(raw);
      } finally {
        idle.push(worker);
      }
    },
    async close() {
      await Promise.all(all.map((worker) => worker.terminate()));
    },
  };
}

function autocannonOptions(options: LoadOptions) {
  return {
    url: options.url,
    connections: options.connections,
    ...(options.amount === undefined ? { duration: options.seconds ?? 1 } : { amount: options.amount }),
    headers: options.headers ?? {},
    ...(options.method ? { method: options.method } : {}),
    ...(options.body === undefined ? {} : { body: options.body }),
    timeout: 10,
    // autocannon only finishes on its next sample tick; the default 1 s tick idles short runs.
    sampleInt: 50,
  };
}

function toLoadResult(raw: RawResult): LoadResult {
  const statuses = Object.fromEntries(Object.entries(raw.statusCodeStats).map(([status, { count }]) => [status, Number(count)]));
  const requests = Object.values(statuses).reduce((sum, count) => sum + count, 0);
  return {
    requests,
    rps: raw.duration > 0 ? requests / raw.duration : 0,
    p50: raw.p50,
    p99: raw.p99,
    statuses,
    errors: raw.errors + raw.timeouts,
  };
}
