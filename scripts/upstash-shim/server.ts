/**
 * @module The shim's node:http front end: every request that fast-http.ts hands over (SSE,
 * `Expect: 100-continue`, chunked bodies, oversized or malformed heads, HTTP/1.0…). It reads the
 * body within the limit and writes the answers of {@link createShimHandler} (docs/shim.md §1–§11;
 * § numbers below are that file's).
 */
import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { serialize } from "./fast-http.ts";
import type { Answer, ShimHandler } from "./handler.ts";
import { RequestError } from "./protocol.ts";
import { serveSubscription, type SubscriberFactory } from "./sse.ts";

/** How much of a refused body is read and dropped before the connection is closed instead. */
const LINGER_BYTES = 64 * 1024 * 1024;

/**
 * The node:http request listener of the shim.
 *
 * @example
 * createServer(createShimListener(createShimHandler(options), redis.subscriber, options.maxBodyBytes));
 */
export function createShimListener(handler: ShimHandler, subscriber: SubscriberFactory, maxBodyBytes: number): RequestListener {
  return async function handleShimRequest(req, res) {
    handler.stats.requests++;
    if (req.httpVersion === "1.1" && req.headers.host === undefined) {
      const answer = handler.failure(new RequestError(400, "ERR missing Host header (an HTTP/1.1 request needs one, RFC 9112 §3.2)"));
      return refuse(req, res, { ...answer, headers: [...answer.headers, "connection", "close"] });
    }
    const outcome = handler.head(req.method ?? "GET", req.url ?? "/", req.headers);
    if (outcome.kind === "answer") return refuse(req, res, outcome.answer);
    try {
      if (outcome.kind === "subscribe") {
        return await serveSubscription(req, res, { ...outcome, subscriber, stats: handler.stats, headers: handler.headers() });
      }
      const body = await readBody(req, maxBodyBytes);
      return send(res, await handler.run(outcome, body));
    } catch (error) {
      // The client went away mid-body, or node:http timed it out with a 408: no one to answer.
      if (req.socket.destroyed) return;
      const answer = handler.failure(error);
      return error instanceof RequestError ? refuse(req, res, answer) : send(res, answer);
    }
  };
}

/** node:http's refusals of a request it cannot read (lib/_http_server.js, socketOnError), by error code. */
const UNREADABLE: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, "ERR request header fields too large"],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, "ERR chunk extensions too large"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "ERR the request did not arrive in time"],
};

/**
 * Gives node:http's own refusals a JSON body, as every answer of the shim (§4); by default they
 * have none: the 400, 408, 413 and 431 for a request it cannot read (`clientError`), the 417
 * for an `Expect` other than 100-continue (`checkExpectation`); and a CONNECT, which it would
 * close unanswered, gets the 405 of any method the shim does not take.
 *
 * @example
 * answerRefusalsInJson(createServer(createShimListener(handler, redis.subscriber, max)), handler);
 */
export function answerRefusalsInJson(server: Server, handler: ShimHandler): void {
  server.on("clientError", (error: NodeJS.ErrnoException & { reason?: string }, socket: Duplex) => {
    // As node:http's default: nothing into a response already under way, nor to a client gone.
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) return void socket.destroy();
    const [status, message] = UNREADABLE[error.code ?? ""] ?? [400, `ERR malformed request${error.reason ? `: ${error.reason}` : ""}`];
    // Then gone, as fast-http.ts closes after its own refusals.
    socket.end(serialize(handler.failure(new RequestError(status, message)), undefined), () => socket.destroy());
  });
  // A CONNECT never reaches the request handler, and with no listener node:http closes without
  // a word; the handler's own 405 says which methods are allowed.
  server.on("connect", (req: IncomingMessage, socket: Duplex) => {
    handler.stats.requests++;
    const head = handler.head(req.method ?? "CONNECT", req.url ?? "", req.headers);
    const answer = head.kind === "answer" ? head.answer : handler.failure(new RequestError(405, "ERR method CONNECT is not allowed"));
    // node:http took its own error listener off the socket before handing it over: a client
    // that resets now must not take the process down.
    socket.on("error", () => socket.destroy());
    socket.end(serialize(answer, undefined), () => socket.destroy());
  });
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    handler.stats.requests++;
    refuse(req, res, handler.failure(new RequestError(417, `ERR unsupported Expect "${req.headers.expect}": only 100-continue is understood`)));
  });
}

function send(res: ServerResponse, answer: Answer): void {
  if (res.headersSent) return void res.end(); // A stream already under way can only be ended.
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

/** Answers before the body was read: drops the rest of it, or closes when it is too big to drop. */
function refuse(req: IncomingMessage, res: ServerResponse, answer: Answer): void {
  if (Number(req.headers["content-length"] ?? 0) > LINGER_BYTES) {
    send(res, { ...answer, headers: [...answer.headers, "connection", "close"] });
    return;
  }
  discardRest(req);
  send(res, answer);
}

/**
 * Reads and drops the rest of a refused request's body. A client still writing then reads the
 * answer: closing the socket on unread data would reset the connection first, the client would
 * see EPIPE instead of the 413, and @upstash/redis retries a failed fetch (§11.5). Past
 * {@link LINGER_BYTES} the connection is dropped anyway.
 */
function discardRest(req: IncomingMessage): void {
  if (req.complete) return;
  let dropped = 0;
  req.removeAllListeners("data");
  req.on("data", (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) req.socket.destroy();
  });
  req.resume();
}

/**
 * Reads the body, and gives up as soon as it exceeds `max` bytes (§3: 413). The caller answers at
 * once and drops the rest ({@link discardRest}), so that nothing of an oversized body is kept.
 */
function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  if (Number(req.headers["content-length"] ?? 0) > max) return Promise.reject(tooLarge(max));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) return void chunks.push(chunk);
      req.off("data", onData).off("end", onEnd).pause();
      reject(tooLarge(max));
    };
    const onEnd = () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    req.on("data", onData).once("end", onEnd).once("error", reject);
  });
}

/** §3: a body over the limit. */
function tooLarge(max: number): RequestError {
  return new RequestError(413, `ERR max request size exceeded (${max} bytes)`);
}
