/**
 * @module Pub/Sub over Server-Sent Events: `POST /subscribe/<ch>` and `POST /psubscribe/<pattern>`
 * (docs/shim.md §11.7; § numbers below are that file's). Each request gets its own Redis
 * subscriber connection, dropped when the client aborts the fetch (that is how `@upstash/redis`
 * unsubscribes) or otherwise ends its side of the connection.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Redis } from "ioredis";
import { RedisUnavailableError } from "./redis.ts";
import type { ShimStats } from "./handler.ts";

/** Opens a new Redis connection for one subscriber. */
export type SubscriberFactory = () => Redis;

/** One subscription request, already authenticated and routed. */
export interface Subscription {
  /** `psubscribe` (patterns) rather than `subscribe`. */
  pattern: boolean;
  /** Channel names or patterns, percent-decoded (§1). */
  channels: string[];
  subscriber: SubscriberFactory;
  stats: ShimStats;
  /** The headers every answer of the shim carries (sync token, CORS), flat `[name, value, …]`. */
  headers: string[];
}

/**
 * Subscribes, flushes the SSE headers at once (the client counts itself subscribed on the status),
 * then streams `data: subscribe,<ch>,<n>` and `data: message,<ch>,<msg>` (or `psubscribe` /
 * `pmessage,<pattern>,<ch>,<msg>`) frames until the client or Redis goes away. Messages are raw, never
 * base64 (§11.7). Throws {@link RedisUnavailableError} when Redis refuses the subscription.
 *
 * @example
 * await serveSubscription(req, res, { pattern: false, channels: ["chat"], subscriber, stats, headers: [] });
 */
export async function serveSubscription(req: IncomingMessage, res: ServerResponse, sub: Subscription): Promise<void> {
  req.resume(); // The body is `[]`; nothing in it matters.
  const redis = sub.subscriber();
  redis.on("error", () => {});
  const kind = sub.pattern ? "psubscribe" : "subscribe";
  let closed = false;
  // The server is half-open (index.ts), so a client's FIN closes nothing by itself: a client that
  // has finished (an aborted fetch, curl timing out) would keep its subscription for good.
  const finish = () => {
    if (closed) return;
    closed = true;
    redis.disconnect();
    if (!res.headersSent) return void req.socket.destroy();
    res.end();
    req.socket.end(); // After the stream's last chunk; the connection then closes, both sides done.
  };
  res.once("close", () => {
    closed = true;
    req.socket.off("end", finish);
    redis.disconnect();
  });
  if (req.socket.readableEnded) finish();
  else req.socket.once("end", finish);
  const write = (fields: Array<string | Buffer>) => {
    const frame = `data: ${fields.map(String).join(",")}\n\n`;
    sub.stats.bytesOut += Buffer.byteLength(frame);
    res.write(frame);
  };
  try {
    if (sub.pattern) await redis.psubscribe(...sub.channels);
    else await redis.subscribe(...sub.channels);
  } catch (error) {
    redis.disconnect();
    throw new RedisUnavailableError(error); // The HTTP layer answers it with 503, as for any command.
  }
  if (closed) return;
  res.writeHead(200, [...sub.headers, "content-type", "text/event-stream", "cache-control", "no-cache", "connection", "keep-alive"]);
  res.flushHeaders();
  for (const [i, channel] of sub.channels.entries()) write([kind, channel, String(i + 1)]);
  redis.on("messageBuffer", (channel: Buffer, message: Buffer) => write(["message", channel, message]));
  redis.on("pmessageBuffer", (pattern: Buffer, channel: Buffer, message: Buffer) => write(["pmessage", pattern, channel, message]));
  // Redis went away: end the stream so the client notices. ioredis would reconnect and subscribe
  // again on its own, but what was published meanwhile is lost, and the client would never know.
  redis.once("close", finish);
}
