/**
 * @module A stand-in for the Upstash REST endpoint, used only while the real shim has not landed:
 * it answers every command with `{"result":"PONG"}` and counts requests and bytes like the shim's
 * `stats`. It is enough for the floor Worker (one PING per request) and nothing else; the report
 * says when it was used.
 */
import { createServer } from "node:http";
import type { RestStats, ShimHandle } from "./project-modules.ts";

/**
 * Starts the stand-in on a free loopback port.
 *
 * @example
 * const rest = await startStandInRest("token");
 */
export async function startStandInRest(token: string): Promise<ShimHandle & { stats: RestStats }> {
  const stats: RestStats = {
    requests: 0,
    bytesIn: 0,
    bytesOut: 0,
    reset() {
      stats.requests = stats.bytesIn = stats.bytesOut = 0;
    },
  };
  const server = createServer((req, res) => {
    stats.requests++;
    req.on("data", (chunk: Buffer) => (stats.bytesIn += chunk.length));
    req.on("end", () => {
      const ok = req.headers.authorization === `Bearer ${token}`;
      const body = ok ? '{"result":"PONG"}' : '{"error":"Unauthorized"}';
      stats.bytesOut += body.length;
      res.writeHead(ok ? 200 : 401, { "content-type": "application/json" });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
