/**
 * @module A TCP relay on 127.0.0.1 in front of an HTTP server: it forwards bytes both ways and
 * counts them (what a request costs on the wire, HTTP headers included, which only the wire
 * shows), counts requests waiting for an answer, and can drop a connection at the worst moment:
 * once the server has answered (so the command ran) but before the client sees a byte of it.
 */
import { connect, createServer, type Socket } from "node:net";

/** A running relay. */
export interface TcpRelay {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Bytes from clients to the server (up) and back (down) since the last {@link resetBytes}. */
  readonly bytes: { up: number; down: number };
  resetBytes(): void;
  /** Requests sent on and not answered yet. */
  inFlight(): number;
  /** The most requests ever in flight at once since the last {@link resetPeak}. */
  peak(): number;
  resetPeak(): void;
  /** The next answer from the server is swallowed and both connections are destroyed. */
  dropNextAnswer(): void;
  /** How many answers were swallowed. */
  dropped(): number;
  close(): Promise<void>;
}

/**
 * Starts a relay on a free loopback port in front of `target` (an http://host:port URL).
 *
 * @example
 * const relay = await startTcpRelay(shim.url);
 * // point the client at relay.url, then read relay.bytes
 * relay.dropNextAnswer(); // the next command runs, and its client never hears of it
 */
export async function startTcpRelay(target: string): Promise<TcpRelay> {
  const { hostname, port } = new URL(target);
  const bytes = { up: 0, down: 0 };
  let inFlight = 0;
  let peak = 0;
  let dropNext = false;
  let dropped = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    let waiting = false;
    const settle = () => {
      if (waiting) {
        waiting = false;
        inFlight--;
      }
    };
    client.on("data", (chunk: Buffer) => {
      bytes.up += chunk.length;
      if (!waiting) {
        waiting = true;
        peak = Math.max(peak, ++inFlight);
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      bytes.down += chunk.length;
      settle();
      if (dropNext) {
        dropNext = false;
        dropped++;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      socket.on("error", () => {});
      socket.on("close", () => {
        settle();
        sockets.delete(socket);
        other.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    bytes,
    resetBytes: () => {
      bytes.up = 0;
      bytes.down = 0;
    },
    inFlight: () => inFlight,
    peak: () => peak,
    resetPeak: () => {
      peak = inFlight;
    },
    dropNextAnswer: () => {
      dropNext = true;
    },
    dropped: () => dropped,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
