/**
 * @module The origin for the local stack, the tests, the bench and the soak. By default it echoes
 * what it received (method, path, query, headers, body) as JSON, so that a test can see exactly
 * what the Worker forwarded and a person running `npm start` can see the request arrive. With
 * `echo: false` it gives the smallest answer Node can give (`ok`), so that a long load run pays the
 * same tiny constant for every contender and nothing grows.
 */
import { createServer, type IncomingMessage } from "node:http";

/** What the echo origin saw of one request. */
export interface EchoedRequest {
  method: string;
  /** Path and query, as received. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A running origin. */
export interface Origin {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Requests answered so far. */
  readonly count: number;
  close(): Promise<void>;
}

/** Where it listens, and what it answers. */
export interface OriginOptions {
  /** 0 picks a free one. @default 0 */
  port?: number;
  /** @default "127.0.0.1" */
  host?: string;
  /** Echo each request as JSON (true), or answer `ok` (false). @default true */
  echo?: boolean;
}

/**
 * Starts the origin.
 *
 * @example
 * const origin = await startOrigin();
 * await fetch(`${origin.url}/hello`); // → 200 {"method":"GET","url":"/hello",…}
 * const quiet = await startOrigin({ echo: false }); // → 200 ok
 */
export async function startOrigin({ port = 0, host = "127.0.0.1", echo = true }: OriginOptions = {}): Promise<Origin> {
  let count = 0;
  const server = createServer(async (req, res) => {
    count++;
    if (!echo) {
      req.resume();
      res.writeHead(200, { "content-type": "text/plain", "content-length": "2" });
      return void res.end("ok");
    }
    const echoed: EchoedRequest = { method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, body: await readBody(req) };
    res.writeHead(200, { "content-type": "application/json", "x-demo-origin": "1" });
    res.end(JSON.stringify(echoed));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as { port: number };
  return {
    url: `http://${host}:${address.port}`,
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

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
