// Worker-thread entry for lib/load.ts: runs autocannon on request, in its own event loop, so
// that the load generator never shares a thread with the shim or the origin. Plain JavaScript
// because a worker thread does not inherit the TypeScript loader (tsx, or Vitest's). Off the main
// thread autocannon returns its raw, encoded histograms; aggregateResult decodes them.
import { parentPort } from "node:worker_threads";
import autocannon from "autocannon";

parentPort.on("message", async ({ id, options }) => {
  try {
    const result = autocannon.aggregateResult([await autocannon(options)], options);
    const { duration, errors, timeouts, statusCodeStats, latency } = result;
    parentPort.postMessage({ id, result: { duration, errors, timeouts, statusCodeStats, p50: latency.p50, p99: latency.p99 } });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error?.stack ?? error) });
  }
});
