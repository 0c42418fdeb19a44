/**
 * @module The Upstash REST shim: makes a plain `redis-server` speak the Upstash REST protocol
 * (docs/shim.md; § numbers below are that file's), so that `@upstash/redis` and
 * `@upstash/ratelimit` work against it unchanged.
 */
import { createServer as createHttpServer } from "node:http";
import { createServer, type Socket } from "node:net";
import { checkRedisUrl } from "./cli-options.ts";
import { createExecutor } from "./execute.ts";
import { serveConnection } from "./fast-http.ts";
import { createShimHandler, createStats, type ShimFaults, type ShimStats } from "./handler.ts";
import { MAX_REQUEST_BYTES } from "./protocol.ts";
import { connectRedis } from "./redis.ts";
import { answerRefusalsInJson, createShimListener } from "./server.ts";

export type { ShimFaults, ShimStats } from "./handler.ts";

/** How long an idle keep-alive connection stays open. */
const KEEP_ALIVE_MS = 60_000;

/** Options of {@link startShim}. */
export interface ShimOptions {
  /** The Redis behind the shim, `redis://host:port` (or `rediss://`); with `cluster`, any node of it. */
  redisUrl: string;
  /** `redisUrl` is a node of a Redis Cluster (README, "Redis Cluster"). @default false */
  cluster?: boolean;
  /** The bearer token clients must send (§2). Required: the shim never runs open. */
  token: string;
  /** @default 0 (a free port) */
  port?: number;
  /** @default "127.0.0.1" (loopback only: the shim is a development tool) */
  host?: string;
  /** @default 10 MB, Upstash's limit on the free and pay-as-you-go plans (§3) */
  maxBodyBytes?: number;
  /**
   * On the connections the shim's reader hands to node:http (chunked bodies, SSE, HTTP/1.0, …):
   * a request whose head and body have not all arrived within this long is answered 408 and its
   * connection closed (node:http's `requestTimeout`; its head, within the lesser of this and 60 s).
   * @default 300_000 (node:http's)
   */
  requestTimeoutMs?: number;
}

/** Every option {@link startShim} reads. */
const SHIM_OPTIONS = ["redisUrl", "cluster", "token", "port", "host", "maxBodyBytes", "requestTimeoutMs"] as const satisfies ReadonlyArray<keyof ShimOptions>;

/** A running shim. */
export interface Shim {
  /** `http://<host>:<port>`: the `UPSTASH_REDIS_REST_URL` to give the client. */
  url: string;
  /** Request and byte counters. */
  stats: ShimStats;
  /** Test-only faults: make the shim slow, or make it answer an error status. */
  faults: { set(faults: ShimFaults): void; clear(): void };
  /** Stops accepting, drops open connections and disconnects from Redis. */
  close(): Promise<void>;
}

/**
 * Starts the shim and resolves once it accepts connections (and Redis answered, or the first
 * attempt to reach it failed: requests then get 503 until Redis is back).
 *
 * @example
 * const shim = await startShim({ redisUrl: "redis://127.0.0.1:6380", token: "secret" });
 * const redis = new Redis({ url: shim.url, token: "secret" }); // @upstash/redis
 * await shim.close();
 */
export async function startShim(options: ShimOptions): Promise<Shim> {
  const unknown = Object.keys(options).find((name) => !(SHIM_OPTIONS as readonly string[]).includes(name));
  if (unknown !== undefined) throw new TypeError(`startShim: unknown option ${JSON.stringify(unknown)} (expected one of ${SHIM_OPTIONS.join(", ")})`);
  // fetch and node:http drop spaces and line breaks at a header value's ends (RFC 9110 §5.5):
  // kept here, a pasted token's own clients could never match it.
  const token = options.token?.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
  if (!token) throw new Error("startShim: a non-empty token is required");
  const { port = 0, host = "127.0.0.1", maxBodyBytes = MAX_REQUEST_BYTES, requestTimeoutMs = 300_000 } = options;
  requireWhole("port", port, 0, 65_535, "a whole number from 0 to 65535");
  requireWhole("maxBodyBytes", maxBodyBytes, 1, Number.MAX_SAFE_INTEGER, "a whole number of bytes, at least 1");
  requireWhole("requestTimeoutMs", requestTimeoutMs, 1, Number.MAX_SAFE_INTEGER, "a whole number of milliseconds, at least 1");
  const headersTimeoutMs = Math.min(60_000, requestTimeoutMs);
  // As the CLI checks --redis-url: a bare "host:port" or an http:// URL would fail later, unnamed.
  const redis = connectRedis(checkRedisUrl("startShim: redisUrl", options.redisUrl), { cluster: options.cluster });
  const stats = createStats();
  const faults: ShimFaults = {};
  const clearFaults = () => Object.assign(faults, { delayMs: undefined, status: undefined });
  const handler = createShimHandler({ token, executor: createExecutor(redis), maxBodyBytes, stats, faults });
  // node:http takes only the connections the shim's own reader hands over (fast-http.ts); it never
  // listens. It starts checking its connections' head and request timeouts on 'listening'
  // (lib/_http_server.js, setupConnectionsTracking), so without that event a handed-over
  // connection whose client stalls mid-request would stay open for good.
  const fallback = createHttpServer(
    {
      // The listener refuses a request without Host itself, in JSON like every answer (§4).
      requireHostHeader: false,
      keepAliveTimeout: KEEP_ALIVE_MS,
      requestTimeout: requestTimeoutMs,
      headersTimeout: headersTimeoutMs,
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, requestTimeoutMs / 4)),
    },
    createShimListener(handler, redis.subscriber, maxBodyBytes),
  );
  fallback.emit("listening");
  answerRefusalsInJson(fallback, handler);
  // A client may finish sending and still read its answer, as on the shim's own reader; node:http
  // otherwise aborts a request whose client half-closes (lib/_http_server.js, socketOnEnd).
  Object.assign(fallback, { httpAllowHalfOpen: true });
  const sockets = new Set<Socket>();
  // Half-open, as node:http's own server: a client may finish sending and still read its answers.
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket.once("close", () => sockets.delete(socket)));
    serveConnection(socket, { handler, maxBodyBytes, fallback, keepAliveMs: KEEP_ALIVE_MS, requestTimeoutMs, headersTimeoutMs });
  });
  await redis.ready;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
  } catch (error) {
    await redis.close();
    throw error;
  }
  const { port: actualPort } = server.address() as { port: number };
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${actualPort}`,
    stats,
    faults: {
      set: (next) => Object.assign(clearFaults(), next),
      clear: clearFaults,
    },
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        fallback.closeAllConnections();
        fallback.close(); // Stops the checks started by 'listening' (above); it never listened.
      }).then(() => redis.close())),
  };
}

/** Refuses an option that is not a whole number in [min, max], naming it, before anything starts. */
function requireWhole(name: string, value: number, min: number, max: number, expected: string): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`startShim: ${name} must be ${expected}; got ${String(value)}`);
  }
}
