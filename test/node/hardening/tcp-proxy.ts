/**
 * @module A TCP proxy for fault tests: it forwards bytes both ways, counts requests that wait for
 * an answer, and can drop the connection at the worst moment: once the server has answered (so the
 * command ran) but before the client sees a byte of that answer.
 */
import { connect, createServer, type Socket } from "node:net";

/** A running proxy. */
export interface TcpProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
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
 * Starts a proxy on 127.0.0.1 in front of `target` (an http://host:port URL).
 *
 * @example
 * const proxy = await startTcpProxy(shim.url);
 * proxy.dropNextAnswer(); // the next command runs, and its client never hears of it
 */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(target);
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
      if (waiting) (waiting = false), inFlight--;
    };
    client.on("data", (chunk) => {
      if (!waiting) (waiting = true), (peak = Math.max(peak, ++inFlight));
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
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
    for (const [socket, other] of [[client, upstream], [upstream, client]] as const) {
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
    inFlight: () => inFlight,
    peak: () => peak,
    resetPeak: () => void (peak = inFlight),
    dropNextAnswer: () => void (dropNext = true),
    dropped: () => dropped,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
