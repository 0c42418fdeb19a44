/**
 * @module The shim's HTTP layer (node:http): authentication, routing, body limits and the JSON
 * envelopes of docs/shim.md §1–§10 (§ numbers below are that file's). Commands are run by
 * {@link createExecutor}.
 */
import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Executor } from "./execute.ts";
import { decodeSegment, pathFormCommand } from "./path-form.ts";
import { entryJson, errorJson, parseCommandBody, parsePipelineBody, RequestError } from "./protocol.ts";
import { RedisUnavailableError } from "./redis.ts";
import { serveSubscription, type SubscriberFactory } from "./sse.ts";

/** Counters for tests and benchmarks. */
export interface ShimStats {
  /** HTTP requests received. */
  requests: number;
  /** Request body bytes read. */
  bytesIn: number;
  /** Response body bytes written (SSE frames included). */
  bytesOut: number;
  /** Sets every counter back to 0. */
  reset(): void;
}

/** Test-only faults, applied to every authenticated request once its body is read. */
export interface ShimFaults {
  /** Wait this long before answering. */
  delayMs?: number;
  /** Answer with this status and a JSON error instead of running the command. */
  status?: number;
}

/** What {@link createShimListener} needs. */
export interface ShimListenerOptions {
  token: string;
  executor: Executor;
  subscriber: SubscriberFactory;
  /** Larger bodies get 413 `ERR max request size exceeded` (§3). */
  maxBodyBytes: number;
  stats: ShimStats;
  faults: ShimFaults;
}

const ALLOWED_METHODS = new Set(["HEAD", "GET", "POST", "PUT"]);
/** The `Allow` and `Access-Control-Allow-Methods` value, built once. */
const ALLOW = [...ALLOWED_METHODS].join(", ");
/** How much of a refused body is read and dropped before the connection is closed instead. */
const LINGER_BYTES = 64 * 1024 * 1024;

/** Creates a fresh stats object. */
export function createStats(): ShimStats {
  return {
    requests: 0,
    bytesIn: 0,
    bytesOut: 0,
    reset() {
      this.requests = this.bytesIn = this.bytesOut = 0;
    },
  };
}

/**
 * The request listener of the shim.
 *
 * @example
 * createServer(createShimListener({ token, executor, subscriber, maxBodyBytes, stats, faults }));
 */
export function createShimListener(options: ShimListenerOptions): RequestListener {
  const { stats, faults } = options;
  const tokenDigest = digest(options.token);
  const syncPrefix = randomBytes(4).toString("hex");
  let syncCounter = 0;

  /**
   * The headers of every answer, as the flat `[name, value, …]` list that `writeHead` takes
   * without merging (no `setHeader` before it): §10, a new, non-empty sync token; §14, CORS.
   */
  const answerHeaders = (...more: string[]) => [
    "upstash-sync-token",
    `${syncPrefix}-${++syncCounter}`,
    "access-control-allow-origin",
    "*",
    "access-control-expose-headers",
    "upstash-sync-token",
    ...more,
  ];
  const send = (res: ServerResponse, status: number, body: string, extra: Record<string, string> = {}) => {
    if (res.headersSent) return void res.end(); // A stream already under way can only be ended.
    stats.bytesOut += Buffer.byteLength(body);
    res.writeHead(status, answerHeaders("content-type", "application/json", ...Object.entries(extra).flat()));
    res.end(body);
  };

  return async function handleShimRequest(req, res) {
    stats.requests++;
    const method = req.method ?? "GET";
    if (method === "OPTIONS") {
      const allowHeaders = "authorization, content-type, upstash-encoding, upstash-sync-token, upstash-response-format";
      res.writeHead(204, answerHeaders("access-control-allow-methods", ALLOW, "access-control-allow-headers", allowHeaders));
      return void res.end();
    }
    const refuse = (status: number, body: string, extra: Record<string, string> = {}) => {
      if (Number(req.headers["content-length"] ?? 0) > LINGER_BYTES) return send(res, status, body, { ...extra, connection: "close" });
      discardRest(req);
      return send(res, status, body, extra);
    };
    if (!ALLOWED_METHODS.has(method)) {
      return refuse(405, errorJson(`ERR method ${method} is not allowed`), { allow: ALLOW });
    }
    const url = requestUrl(req);
    if (!url) return refuse(400, errorJson("ERR malformed request URL"));
    // §2: the token is checked before the body is read.
    if (!authorized(req, url, tokenDigest)) return refuse(401, errorJson("Unauthorized"));

    try {
      const format = req.headers["upstash-response-format"];
      if (format !== undefined && String(format).toLowerCase() !== "json") {
        throw new RequestError(400, `ERR unsupported Upstash-Response-Format "${format}": this shim only answers json`);
      }
      const route = routeOf(url.pathname);
      if (route.kind === "subscribe") {
        return await serveSubscription(req, res, { ...route, subscriber: options.subscriber, stats, headers: answerHeaders() });
      }
      const body = await readBody(req, options.maxBodyBytes);
      stats.bytesIn += body.length;
      if (faults.delayMs) await new Promise((resolve) => setTimeout(resolve, faults.delayMs));
      if (faults.status) return send(res, faults.status, errorJson(`ERR injected fault: status ${faults.status}`));

      const base64 = String(req.headers["upstash-encoding"] ?? "").toLowerCase() === "base64";
      if (route.kind === "pipeline" || route.kind === "multi-exec") {
        const commands = parsePipelineBody(body.toString("utf8"));
        const run = route.kind === "pipeline" ? options.executor.pipeline : options.executor.transaction;
        const outcomes = await run(commands);
        return send(res, 200, `[${outcomes.map((outcome) => entryJson(outcome, base64)).join(",")}]`);
      }
      const command = route.kind === "single" ? parseCommandBody(body.toString("utf8")) : pathFormCommand(url, body);
      const [outcome] = await options.executor.pipeline([command]);
      return send(res, outcome instanceof Error ? 400 : 200, entryJson(outcome!, base64));
    } catch (error) {
      if (error instanceof RequestError) return refuse(error.status, errorJson(error.message));
      if (error instanceof RedisUnavailableError) return send(res, 503, errorJson(error.message));
      console.error("upstash-shim: unexpected error", error);
      return send(res, 500, errorJson("ERR internal shim error"));
    }
  };
}

type Route = { kind: "single" | "pipeline" | "multi-exec" | "path-form" } | { kind: "subscribe"; pattern: boolean; channels: string[] };

function routeOf(pathname: string): Route {
  if (pathname === "/") return { kind: "single" };
  if (pathname === "/pipeline") return { kind: "pipeline" };
  if (pathname === "/multi-exec") return { kind: "multi-exec" };
  const [first = "", ...rest] = pathname.slice(1).split("/");
  if (first === "subscribe" || first === "psubscribe") {
    const channels = rest.map((segment) => decodeSegment(segment));
    if (channels.length === 0 || channels.some((channel) => channel === "")) {
      throw new RequestError(404, `ERR ${first} needs at least one non-empty channel: /${first}/<channel>`);
    }
    return { kind: "subscribe", pattern: first === "psubscribe", channels };
  }
  if (first === "" || first === "pipeline" || first === "multi-exec" || first === "monitor") {
    throw new RequestError(404, `ERR endpoint not found: ${pathname}`);
  }
  return { kind: "path-form" };
}

/** The endpoints' own URLs, parsed once: read-only, shared by every request to them. */
const FIXED_URLS = new Map(["/", "/pipeline", "/multi-exec"].map((path) => [path, new URL(`http://shim${path}`)]));

/** The request's URL, parsed once; `undefined` when it cannot be parsed. */
function requestUrl(req: IncomingMessage): URL | undefined {
  const fixed = FIXED_URLS.get(req.url ?? "/");
  if (fixed) return fixed;
  try {
    // Prefixing keeps a path such as "//x" a path (new URL would read "x" as a host).
    return new URL(`http://shim${req.url ?? "/"}`);
  } catch {
    return undefined;
  }
}

function authorized(req: IncomingMessage, url: URL, expected: Buffer): boolean {
  const header = req.headers.authorization;
  const bearer = header?.match(/^Bearer\s+(.+)$/i)?.[1];
  const given = url.searchParams.get("_token") ?? bearer;
  // Compare fixed-length digests in constant time, so neither content nor length leaks.
  return given !== undefined && timingSafeEqual(digest(given), expected);
}

function digest(text: string): Buffer {
  // The one-shot hash: half the cost of createHash().update().digest(), on every request.
  return hash("sha256", text, "buffer") as unknown as Buffer;
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
  const tooLarge = () => new RequestError(413, `ERR max request size exceeded (${max} bytes)`);
  if (Number(req.headers["content-length"] ?? 0) > max) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) return void chunks.push(chunk);
      req.off("data", onData).off("end", onEnd).pause();
      reject(tooLarge());
    };
    const onEnd = () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    req.on("data", onData).once("end", onEnd).once("error", reject);
  });
}
