/**
 * @module The shim's own HTTP/1.1 reader, on every connection it accepts. It serves the requests
 * clients send by the thousand (plain keep-alive requests with a Content-Length body within the
 * limit, http-head.ts) without node:http's per-request objects and streams, which cost about as
 * much CPU as everything else the shim does (docs/performance.md). At the first request it does
 * not serve itself (SSE, `Expect: 100-continue`, chunked, HTTP/1.0, OPTIONS, a body over the
 * limit, a malformed head), it hands the connection with its unread bytes to the node:http server
 * (server.ts), which keeps it from then on. Requests on one connection are answered in order,
 * one at a time (RFC 9112 §9.3.2).
 */
import { STATUS_CODES, type Server } from "node:http";
import type { Socket } from "node:net";
import { Duplex } from "node:stream";
import type { Answer, CommandRoute, ShimHandler } from "./handler.ts";
import { parsePlainHead } from "./http-head.ts";
import { RequestError } from "./protocol.ts";

/** What {@link serveConnection} needs. */
export interface FastHttpOptions {
  handler: ShimHandler;
  /** Larger bodies go to node:http, which answers 413 and drops them (server.ts). */
  maxBodyBytes: number;
  /** The node:http server that takes the connections this reader hands over. */
  fallback: Server;
  /** An idle connection is closed after this long. */
  keepAliveMs: number;
  /**
   * A request whose head (within `headersTimeoutMs`) or whole self (within this) has not arrived
   * since its first byte is answered 408 and closed, as node:http bounds the requests it reads: a
   * client trickling a byte now and then never lets a connection go idle.
   */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
}

/** node:http's own limit on a request head (`--max-http-header-size`); past it, node answers 431. */
const MAX_HEAD_BYTES = 16 * 1024;
const CRLFCRLF = Buffer.from("\r\n\r\n");
/** A head's end with bare LFs: node:http answers it 400 where this reader would wait for a CRLF. */
const LF_LF = Buffer.from("\n\n");
const LF_CRLF = Buffer.from("\n\r\n");
const CR = 0x0d;
const LF = 0x0a;

/**
 * Serves one accepted connection.
 *
 * @example
 * createServer((socket) => serveConnection(socket, { handler, maxBodyBytes, fallback, keepAliveMs: 60_000 }));
 */
export function serveConnection(socket: Socket, options: FastHttpOptions): void {
  const { handler, maxBodyBytes } = options;
  const keepAliveSeconds = Math.floor(options.keepAliveMs / 1000);
  /** Bytes received and not yet used, joined only once `needed` of them are there. */
  let chunks: Buffer[] = [];
  let buffered = 0;
  let needed = 1;
  /** Body bytes of a request answered before its body (a refusal) still to drop. */
  let skip = 0;
  /** A routed request whose body has not fully arrived. */
  let waiting: { route: CommandRoute; bodyStart: number; bodyEnd: number; close: boolean } | undefined;
  let busy = false;
  let done = false;
  /** The socket's send buffer is full: read nothing more until it drains (as node:http does). */
  let draining = false;
  /** The client half-closed: it sends nothing more, but still reads the answers. */
  let ended = false;
  /** Armed only while a request has partly arrived (most arrive whole, in one read). */
  let stall: { startedAt: number; timer: NodeJS.Timeout } | undefined;
  const arriving = () => {
    stall ??= { startedAt: Date.now(), timer: setTimeout(checkStall, options.headersTimeoutMs) };
  };
  const arrived = () => {
    if (stall) clearTimeout(stall.timer);
    stall = undefined;
  };
  const checkStall = () => {
    if (!stall || done) return;
    const left = stall.startedAt + options.requestTimeoutMs - Date.now();
    // The head is in once a request waits for its body; its body may take the rest of the time.
    if ((waiting || skip > 0) && left > 0) {
      stall.timer = setTimeout(checkStall, left);
      return;
    }
    stall = undefined;
    // A refused request's body still arriving: its answer is sent already, so there is no 408 to give.
    if (skip > 0) {
      done = true;
      socket.destroy();
      return;
    }
    answer(handler.failure(new RequestError(408, "ERR the request did not arrive in time")), true);
  };

  const take = (): Buffer => {
    const buffer = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, buffered);
    chunks = [buffer];
    return buffer;
  };
  const consume = (buffer: Buffer, used: number) => {
    const rest = buffer.subarray(used);
    chunks = rest.length > 0 ? [rest] : [];
    buffered = rest.length;
  };
  const handOver = () => {
    arrived();
    done = true;
    socket.off("data", onData).off("end", onEnd).off("timeout", onTimeout).off("error", ignore).setTimeout(0);
    if (ended) return void options.fallback.emit("connection", endedSocket(socket, buffered > 0 ? take() : Buffer.alloc(0)));
    socket.pause();
    if (buffered > 0) socket.unshift(take());
    options.fallback.emit("connection", socket);
    socket.resume();
  };
  const answer = (reply: Answer, close: boolean) => {
    const flushed = socket.write(serialize(reply, close ? undefined : keepAliveSeconds));
    if (close) {
      done = true;
      arrived();
      // Then gone, as node:http does: a client still sending would otherwise fill memory unread.
      socket.end(() => socket.destroy());
    } else if (!flushed) {
      draining = true;
      socket.pause().once("drain", () => {
        draining = false;
        socket.resume();
        pump();
      });
    }
  };
  const run = (route: CommandRoute, body: Buffer, close: boolean) => {
    busy = true;
    handler.run(route, body).then(
      (reply) => {
        busy = false;
        if (socket.destroyed) return;
        answer(reply, close);
        if (!draining) socket.resume();
        pump();
      },
      (error: unknown) => socket.destroy(error as Error), // run() answers every failure; this is a bug.
    );
  };

  /** Serves what the buffer holds; once the client has finished sending and all is answered, ends. */
  const pump = () => {
    serveBuffered();
    if (!ended || busy || done || draining) return;
    // A request cut off by the client's end can never complete: node:http answers it 400.
    if (waiting || buffered > 0) return answer(handler.failure(new RequestError(400, "ERR the connection ended inside a request")), true);
    done = true;
    socket.end();
  };
  /** Serves every complete request in the buffer, one at a time. */
  const serveBuffered = () => {
    while (!busy && !done && !draining && buffered >= needed) {
      needed = 1;
      if (skip > 0) {
        const dropped = Math.min(skip, buffered);
        skip -= dropped;
        consume(take(), dropped);
        if (skip > 0) arriving();
        else arrived();
        continue;
      }
      const buffer = take();
      if (waiting) {
        const { route, bodyStart, bodyEnd, close } = waiting;
        if (buffer.length < bodyEnd) {
          needed = bodyEnd;
          arriving();
          return;
        }
        arrived();
        waiting = undefined;
        const body = buffer.subarray(bodyStart, bodyEnd);
        consume(buffer, bodyEnd);
        run(route, body, close);
        return;
      }
      // RFC 9112 §2.2: empty lines before a request-line are no request (nor a stalled one).
      let blank = 0;
      while (blank < buffer.length && (buffer[blank] === CR || buffer[blank] === LF)) blank++;
      if (blank > 0) {
        consume(buffer, blank);
        continue;
      }
      const headEnd = buffer.indexOf(CRLFCRLF);
      if (headEnd === -1 && (buffer.indexOf(LF_LF) !== -1 || buffer.indexOf(LF_CRLF) !== -1)) return handOver();
      if (headEnd === -1 && buffer.length <= MAX_HEAD_BYTES) return arriving();
      const head = headEnd === -1 || headEnd > MAX_HEAD_BYTES ? undefined : parsePlainHead(buffer.toString("latin1", 0, headEnd));
      // A body over the limit needs node's 413 and drain (server.ts).
      if (!head || head.bodyLength > maxBodyBytes) return handOver();
      const outcome = handler.head(head.method, head.target, head.headers);
      if (outcome.kind === "subscribe") return handOver(); // SSE streams its answer (server.ts).
      handler.stats.requests++;
      const bodyStart = headEnd + 4;
      if (outcome.kind === "answer") {
        arrived();
        consume(buffer, bodyStart);
        skip = head.bodyLength;
        answer(outcome.answer, head.close);
        continue;
      }
      waiting = { route: outcome, bodyStart, bodyEnd: bodyStart + head.bodyLength, close: head.close };
    }
  };
  const onData = (chunk: Buffer) => {
    if (done) return; // Answered with Connection: close: nothing more is read.
    chunks.push(chunk);
    buffered += chunk.length;
    // A client that keeps sending while its request runs waits for the answer (RFC 9112 §9.3.2).
    if (busy && buffered > maxBodyBytes + MAX_HEAD_BYTES) socket.pause();
    pump();
  };
  const onEnd = () => {
    ended = true;
    pump();
  };
  const onTimeout = () => {
    if (!busy) socket.destroy();
  };
  socket.setNoDelay(true);
  socket.setTimeout(options.keepAliveMs, onTimeout);
  socket.on("data", onData);
  socket.on("end", onEnd);
  socket.on("error", ignore); // A reset by the client; the socket closes.
}

function ignore(): void {}

/**
 * The connection of a client that has ended its side, for node:http: its unread bytes, then the
 * end, on a stream of their own, and what node:http writes sent on the socket. A socket that has
 * emitted 'end' cannot take its bytes back (`unshift` throws), and its request would go unanswered.
 */
function endedSocket(socket: Socket, unread: Buffer): Duplex {
  const stream = new Duplex({
    read() {},
    write: (chunk, encoding, callback) => void socket.write(chunk, encoding, callback),
    final: (callback) => void socket.end(callback),
    destroy: (error, callback) => {
      socket.destroy();
      callback(error);
    },
  });
  Object.assign(stream, { remoteAddress: socket.remoteAddress, remotePort: socket.remotePort, setNoDelay: () => stream });
  socket.on("error", (error) => stream.destroy(error)).on("close", () => stream.destroy());
  if (unread.length > 0) stream.push(unread);
  stream.push(null);
  return stream;
}

let dateSecond = -1;
let dateText = "";

/** RFC 9110 §6.6.1: an origin server with a clock sends Date; the text changes once a second. */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

/** The whole HTTP/1.1 response as one string, for one socket write; `keepAliveSeconds` undefined: the connection closes. */
export function serialize(reply: Answer, keepAliveSeconds: number | undefined): string {
  let text = `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? ""}\r\n`;
  for (let i = 0; i < reply.headers.length; i += 2) text += `${reply.headers[i]}: ${reply.headers[i + 1]}\r\n`;
  // RFC 9110 §8.6: no Content-Length on a 204.
  if (reply.status !== 204) text += `content-length: ${Buffer.byteLength(reply.body)}\r\n`;
  text += `date: ${httpDate()}\r\n`;
  text += keepAliveSeconds === undefined ? "connection: close\r\n" : `connection: keep-alive\r\nkeep-alive: timeout=${keepAliveSeconds}\r\n`;
  return `${text}\r\n${reply.body}`;
}
