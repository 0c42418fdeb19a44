// Worker-thread entry for lib/load.ts: runs autocannon on request, in its own event loop, so
// that the load generator never shares a thread with the shim or the origin. Plain JavaScript
// because a worker thread does not inherit the TypeScript loader (tsx, or Vitest's). Off the main
// thread autocannon returns its raw, encoded histograms; aggregateResult decodes them.
// autocannon's histograms hold whole milliseconds, too coarse for a 0.2 ms round trip, so the
// percentiles come from every response's own time (its `response` event, in fractional ms).
import { parentPort } from "node:worker_threads";
import autocannon from "autocannon";

parentPort.on("message", async ({ id, options }) => {
  try {
    const latencies = [];
    const instance = autocannon(options);
    instance.on("response", (_client, _status, _bytes, ms) => latencies.push(ms));
    const result = autocannon.aggregateResult([await instance], options);
    const { duration, errors, timeouts, statusCodeStats } = result;
    latencies.sort((a, b) => a - b);
    const at = (p) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil((p / 100) * latencies.length) - 1))] : Number.NaN);
    parentPort.postMessage({ id, result: { duration, errors, timeouts, statusCodeStats, p50: at(50), p99: at(99) } });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error?.stack ?? error) });
  }
});
