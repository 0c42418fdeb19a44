/**
 * @module A small origin for the local stack and the tests: it answers every request with a JSON
 * echo of what it received (method, path, query, headers, body), so that a test can see exactly
 * what the Worker forwarded, and a person running `npm start` can see the request arrive.
 */
import { createServer, type IncomingMessage } from "node:http";

/** What the demo origin saw of one request. */
export interface EchoedRequest {
  method: string;
  /** Path and query, as received. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A running demo origin. */
export interface DemoOrigin {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the echo origin on 127.0.0.1 (port 0 picks a free one).
 *
 * @example
 * const origin = await startDemoOrigin({ port: 0 });
 * await fetch(`${origin.url}/hello`); // → 200 {"method":"GET","url":"/hello",…}
 */
export async function startDemoOrigin({ port = 0, host = "127.0.0.1" } = {}): Promise<DemoOrigin> {
  const server = createServer(async (req, res) => {
    const echoed: EchoedRequest = { method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, body: await readBody(req) };
    res.writeHead(200, { "content-type": "application/json", "x-demo-origin": "1" });
    res.end(JSON.stringify(echoed));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as { port: number };
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
