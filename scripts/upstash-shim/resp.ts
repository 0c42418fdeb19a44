/**
 * @module PURE: RESP2, the protocol the shim speaks to Redis (https://redis.io/docs/latest/develop/reference/protocol-spec/).
 * Commands are encoded as arrays of bulk strings; replies are decoded incrementally, as the
 * socket delivers them, into the shapes of {@link Reply}. No I/O here.
 */
import type { Command, Reply } from "./protocol.ts";

/** An error reply from Redis (`-ERR …`), at the top level or nested in an array. */
export class RedisReplyError extends Error {
  override readonly name = "RedisReplyError";
}

/**
 * Appends `command` to `out` as a RESP array of bulk strings. Text is collected in the last
 * string of `out`, so that a batch of text-only commands is one string for one socket write;
 * a `Buffer` argument is pushed as it is, between two strings.
 *
 * @example
 * const out = [""];
 * encodeCommand({ name: "GET", args: ["k"] }, out); // out → ["*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"]
 */
export function encodeCommand(command: Command, out: Array<string | Buffer>): void {
  let text = `*${command.args.length + 1}\r\n$${Buffer.byteLength(command.name)}\r\n${command.name}\r\n`;
  for (const arg of command.args) {
    if (typeof arg === "string") {
      text += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
      continue;
    }
    out[out.length - 1] += `${text}$${arg.length}\r\n`;
    out.push(arg, "");
    text = "\r\n";
  }
  out[out.length - 1] += text;
}

/** An array still waiting for elements. */
interface OpenArray {
  items: Reply[];
  missing: number;
}

const CR = 13;

/**
 * Decodes a stream of RESP2 replies, chunk by chunk, in linear time: finished elements are never
 * parsed again, and a long bulk string is only joined once all its bytes have arrived. Simple
 * and bulk strings become `Buffer`s, integers their decimal digits (exact beyond 2^53), nil
 * `null`, errors {@link RedisReplyError}.
 *
 * @example
 * const decoder = new ReplyDecoder((reply) => console.log(reply));
 * decoder.push(Buffer.from("*2\r\n:1\r\n$1"));
 * decoder.push(Buffer.from("\r\nx\r\n")); // logs ["1", <Buffer 78>]
 */
export class ReplyDecoder {
  /** Bytes received but not yet decoded; joined only once `#needed` bytes are there. */
  #chunks: Buffer[] = [];
  #buffered = 0;
  #needed = 1;
  readonly #open: OpenArray[] = [];

  /** @param onReply receives each complete top-level reply, in order. */
  constructor(private readonly onReply: (reply: Reply) => void) {}

  /** Feeds bytes from the socket; calls `onReply` for every reply they complete. Throws on bytes that are not RESP2. */
  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    if (this.#buffered < this.#needed) return;
    const buffer = this.#chunks.length === 1 ? chunk : Buffer.concat(this.#chunks, this.#buffered);
    const used = this.#decode(buffer);
    const rest = buffer.length - used;
    this.#chunks = rest === 0 ? [] : [buffer.subarray(used)];
    this.#buffered = rest;
  }

  /** Forgets a partial reply (the connection it came from is gone). */
  reset(): void {
    this.#chunks = [];
    this.#buffered = 0;
    this.#needed = 1;
    this.#open.length = 0;
  }

  /** Decodes every complete value in `buffer`; returns how many bytes it used. */
  #decode(buffer: Buffer): number {
    let at = 0;
    this.#needed = 1;
    while (at < buffer.length) {
      const lineEnd = buffer.indexOf(CR, at);
      if (lineEnd === -1 || lineEnd + 1 >= buffer.length) break;
      const type = buffer[at]!;
      const next = lineEnd + 2;
      let value: Reply;
      if (type === 0x24 /* $ bulk string */) {
        const length = this.#integer(buffer, at + 1, lineEnd);
        if (length < 0) value = null;
        else if (next + length + 2 > buffer.length) {
          this.#needed = next + length + 2 - at;
          break;
        } else value = buffer.subarray(next, next + length);
        at = length < 0 ? next : next + length + 2;
      } else if (type === 0x2a /* * array */) {
        const length = this.#integer(buffer, at + 1, lineEnd);
        at = next;
        if (length > 0) {
          this.#open.push({ items: [], missing: length });
          continue;
        }
        value = length < 0 ? null : [];
      } else {
        const line = at + 1;
        at = next;
        if (type === 0x2b /* + simple string */) value = buffer.subarray(line, lineEnd);
        else if (type === 0x3a /* : integer */) value = buffer.toString("latin1", line, lineEnd);
        else if (type === 0x2d /* - error */) value = new RedisReplyError(buffer.toString("utf8", line, lineEnd));
        else throw new Error(`Redis sent a reply that is not RESP2 (type byte 0x${type.toString(16)})`);
      }
      this.#complete(value);
    }
    return at;
  }

  /** Places a finished value in its array, closing every array it completes, or hands it over. */
  #complete(value: Reply): void {
    for (;;) {
      const open = this.#open.at(-1);
      if (!open) {
        this.onReply(value);
        return;
      }
      open.items.push(value);
      if (--open.missing > 0) return;
      this.#open.pop();
      value = open.items;
    }
  }

  #integer(buffer: Buffer, from: number, to: number): number {
    const text = buffer.toString("latin1", from, to);
    const value = Number(text);
    if (text === "" || !Number.isInteger(value)) throw new Error(`Redis sent a reply that is not RESP2 (length "${text}")`);
    return value;
  }
}
