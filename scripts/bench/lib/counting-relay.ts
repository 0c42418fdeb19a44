/**
 * @module A TCP relay in front of the REST endpoint that counts bytes on the wire in each
 * direction. The shim's own `stats` count request and response bodies; what a decision really
 * costs also includes the HTTP request line and headers (`@upstash/redis` sends several), which
 * only the wire shows.
 */
import { connect, createServer, type Socket } from "node:net";

/** A running relay. */
export interface CountingRelay {
  /** The REST endpoint's URL with the relay's port. */
  url: string;
  /** Bytes from clients to the endpoint (requests) and back (responses) since the last reset. */
  readonly bytes: { up: number; down: number };
  reset(): void;
  close(): Promise<void>;
}

/**
 * Starts a relay on a free loopback port that forwards every connection to `targetUrl`'s host.
 *
 * @example
 * const relay = await startCountingRelay(shim.url);
 * // point the client at relay.url, then read relay.bytes
 */
export async function startCountingRelay(targetUrl: string): Promise<CountingRelay> {
  const target = new URL(targetUrl);
  const bytes = { up: 0, down: 0 };
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => [client, upstream].forEach((s) => s.destroy()));
    }
    client.on("data", (chunk: Buffer) => (bytes.up += chunk.length));
    upstream.on("data", (chunk: Buffer) => (bytes.down += chunk.length));
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const url = new URL(targetUrl);
  url.port = String(port);
  return {
    url: url.origin,
    bytes,
    reset() {
      bytes.up = bytes.down = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
