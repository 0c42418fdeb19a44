/**
 * @module The origin for the local stack, the tests, the bench and the soak. By default it echoes
 * what it received (method, path, query, headers, body) as JSON, so that a test can see exactly
 * what the Worker forwarded and a person running `npm start` can see the request arrive. With
 * `echo: false` it gives the smallest answer Node can give (`ok`), so that a long load run pays the
 * same tiny constant for every contender and nothing grows.
 *
 * An echo request may ask for a different answer with an `x-origin-answer` header holding
 * {@link AnswerAsked} as JSON, so that a test can see what the Worker does with a redirect or an
 * encoded body from a real origin. The echo origin also accepts WebSocket upgrades, and echoes
 * each message.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { WebSocketServer } from "ws";

/** What the echo origin saw of one request. */
export interface EchoedRequest {
  method: string;
  /** Path and query, as received. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** What an `x-origin-answer` request header (JSON) asks the echo origin to answer instead. */
export interface AnswerAsked {
  /** Only a request for this path (and query) gets the answer, others the echo: a redirect followed lands on an echo. @default every path */
  path?: string;
  /** @default 200 */
  status?: number;
  /** Added to the answer's headers, e.g. `location` and `set-cookie` for a redirect. */
  headers?: Record<string, string>;
  /** Content codings applied to the echo, in order, and named in `Content-Encoding` as given: `deflate`, `gzip, gzip`. */
  encoding?: string;
}

/** Each content coding the echo origin can apply (RFC 9110 §8.4.1). */
const CODINGS: Record<string, (body: Buffer) => Buffer> = {
  gzip: gzipSync,
  "x-gzip": gzipSync,
  deflate: deflateSync,
  br: brotliCompressSync,
  identity: (body) => body,
};

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
    // A client that gives up mid-upload (the Worker's timeout aborting it) ends the read with an
    // error: that request is over, and the origin goes on serving the others.
    const body = await readBody(req).catch(() => undefined);
    if (body === undefined) return void res.destroy();
    const echoed: EchoedRequest = { method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, body };
    const asked = req.headers["x-origin-answer"];
    try {
      const answer = typeof asked === "string" ? (JSON.parse(asked) as AnswerAsked) : undefined;
      if (answer && (answer.path === undefined || answer.path === echoed.url)) return void answerAsked(res, answer, JSON.stringify(echoed));
    } catch (error) {
      // A malformed ask (bad JSON, an unknown coding) is the asker's mistake, not a reason to crash the origin.
      res.writeHead(400, { "content-type": "text/plain" });
      return void res.end(`x-origin-answer: ${(error as Error).message}`);
    }
    res.writeHead(200, { "content-type": "application/json", "x-demo-origin": "1" });
    res.end(JSON.stringify(echoed));
  });
  server.keepAliveTimeout = 30_000;
  if (echo) {
    // A WebSocket upgrade (RFC 6455 §4) is answered with 101, and each message echoed back as
    // `<path>: <message>`, so that a test can see a WebSocket proxied to the path it asked for.
    const sockets = new WebSocketServer({ noServer: true });
    server.on("upgrade", (req, socket, head) => {
      count++;
      sockets.handleUpgrade(req, socket, head, (ws) => ws.on("message", (data) => ws.send(`${req.url}: ${String(data)}`)));
    });
  }
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

function answerAsked(res: ServerResponse, asked: AnswerAsked, echo: string): void {
  let body: Buffer = Buffer.from(echo);
  const headers: Record<string, string> = { "content-type": "application/json", "x-demo-origin": "1", ...asked.headers };
  if (asked.encoding) {
    for (const coding of asked.encoding.split(",")) {
      const encode = CODINGS[coding.trim().toLowerCase()];
      if (!encode) throw new Error(`unknown coding ${coding.trim()}`);
      body = encode(body);
    }
    headers["content-encoding"] = asked.encoding;
  }
  headers["content-length"] = String(body.length);
  res.writeHead(asked.status ?? 200, headers);
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
