/**
 * @module The shim's node:http front end: every request that fast-http.ts hands over (SSE,
 * `Expect: 100-continue`, chunked bodies, oversized or malformed heads, HTTP/1.0…). It reads the
 * body within the limit and writes the answers of {@link createShimHandler} (docs/shim.md §1–§11;
 * § numbers below are that file's).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
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
