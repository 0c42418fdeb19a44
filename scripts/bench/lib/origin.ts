/**
 * @module The origin behind every Worker under test: the smallest HTTP answer Node can give, so
 * that the origin's own cost is the same tiny constant for every contender. (The demo origin in
 * scripts/local echoes and records every request, which would grow and skew a long load run.)
 */
import { createServer } from "node:http";

/** A running bench origin. */
export interface BenchOrigin {
  url: string;
  /** Requests answered so far. */
  readonly count: number;
  close(): Promise<void>;
}

/**
 * Starts the origin on a free loopback port.
 *
 * @example
 * const origin = await startBenchOrigin();
 */
export async function startBenchOrigin(): Promise<BenchOrigin> {
  let count = 0;
  const server = createServer((req, res) => {
    count++;
    req.resume();
    res.writeHead(200, { "content-type": "text/plain", "content-length": "2" });
    res.end("ok");
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    get count() {
      return count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
