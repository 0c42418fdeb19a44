/**
 * @module What the shim answers, whichever HTTP front end read the request (server.ts for
 * node:http, fast-http.ts for plain keep-alive requests): authentication, routing, the JSON
 * envelopes and the errors of docs/shim.md §1–§10 (§ numbers below are that file's). Commands are
 * run by {@link createExecutor}. No sockets here.
 */
import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Executor } from "./execute.ts";
import { decodeSegment, pathFormCommand } from "./path-form.ts";
import { entryJson, errorJson, parseCommandBody, parsePipelineBody, RequestError } from "./protocol.ts";
import { RedisUnavailableError } from "./redis.ts";

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

/** One complete answer: the status, every header as a flat `[name, value, …]` list, the body. */
export interface Answer {
  status: number;
  headers: string[];
  body: string;
}

/** The request headers the shim reads, by lower-case name (node:http's `IncomingHttpHeaders` is one). */
export type RequestHeaders = Record<string, string | string[] | undefined>;

/** The route of a request that runs commands once its body is read. */
export interface CommandRoute {
  kind: "single" | "pipeline" | "multi-exec" | "path-form";
  url: URL;
  /**
   * The path as sent, before its `?`. The path form reads its arguments here, not in `url`: a URL
   * parser resolves dot segments (`/set/%2E%2E/flushall` would become `/flushall`) and turns `\`
   * into `/`, which would change the command a client asked for.
   */
  path: string;
  /** `Upstash-Encoding: base64` (§5). */
  base64: boolean;
}

/** A Pub/Sub request (§11.7), served by server.ts's SSE stream. */
export interface SubscribeRoute {
  kind: "subscribe";
  pattern: boolean;
  channels: string[];
}

/**
 * What the head of a request (method, URL, headers) leads to: an answer at once, without reading
 * the body (a refusal, a preflight), or a route.
 */
export type HeadOutcome = { kind: "answer"; answer: Answer } | CommandRoute | SubscribeRoute;

/** What {@link createShimHandler} needs. */
export interface ShimHandlerOptions {
  token: string;
  executor: Executor;
  /** Larger bodies get 413 `ERR max request size exceeded` (§3). */
  maxBodyBytes: number;
  stats: ShimStats;
  faults: ShimFaults;
}

/** The shim's answers; see {@link createShimHandler}. */
export interface ShimHandler {
  /**
   * Checks what the head decides (§2: the token before the body is read) and routes the request.
   * Counts nothing: the front end that answers the request counts it in `stats.requests`.
   */
  head(method: string, target: string, headers: RequestHeaders): HeadOutcome;
  /** Runs a routed request with its whole body; never rejects (every failure is an answer). */
  run(route: CommandRoute, body: Buffer): Promise<Answer>;
  /** The answer to a failure: a {@link RequestError}'s status, 503 for Redis, else 500. */
  failure(error: unknown): Answer;
  /** The headers of every answer plus `more` (§10 sync token, §14 CORS). */
  headers(...more: string[]): string[];
  stats: ShimStats;
}

const ALLOWED_METHODS = new Set(["HEAD", "GET", "POST", "PUT"]);
/** The `Allow` and `Access-Control-Allow-Methods` value, built once. */
export const ALLOW = [...ALLOWED_METHODS].join(", ");
/**
 * The headers clients set (§11.1): @upstash/redis sends its telemetry unless told not to, and sets
 * `Cache-Control` itself on a subscription (§11.7), which no browser sends without a preflight.
 */
const ALLOW_HEADERS = [
  "authorization",
  "cache-control",
  "content-type",
  "upstash-encoding",
  "upstash-sync-token",
  "upstash-response-format",
  "upstash-telemetry-platform",
  "upstash-telemetry-retry",
  "upstash-telemetry-runtime",
  "upstash-telemetry-sdk",
].join(", ");

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
 * The shim's request handling, shared by its HTTP front ends.
 *
 * @example
 * const handler = createShimHandler({ token, executor, maxBodyBytes, stats, faults });
 * const outcome = handler.head("POST", "/", { authorization: `Bearer ${token}` });
 * if (outcome.kind === "single") send(await handler.run(outcome, body));
 */
export function createShimHandler(options: ShimHandlerOptions): ShimHandler {
  const { stats, faults, executor } = options;
  const tokenDigest = digest(options.token);
  const syncPrefix = randomBytes(4).toString("hex");
  let syncCounter = 0;

  // Flat, for writeHead without merging: §10, a new, non-empty sync token; §14, CORS.
  const headers = (...more: string[]) => [
    "upstash-sync-token",
    `${syncPrefix}-${++syncCounter}`,
    "access-control-allow-origin",
    "*",
    "access-control-expose-headers",
    "upstash-sync-token",
    ...more,
  ];
  const json = (status: number, body: string, ...more: string[]): Answer => {
    stats.bytesOut += Buffer.byteLength(body);
    return { status, headers: headers("content-type", "application/json", ...more), body };
  };
  const refuse = (status: number, message: string, ...more: string[]): HeadOutcome => ({ kind: "answer", answer: json(status, errorJson(message), ...more) });
  const failure = (error: unknown): Answer => {
    if (error instanceof RequestError) return json(error.status, errorJson(error.message));
    if (error instanceof RedisUnavailableError) return json(503, errorJson(error.message));
    console.error("upstash-shim: unexpected error", error);
    return json(500, errorJson("ERR internal shim error"));
  };

  const run = async (route: CommandRoute, body: Buffer): Promise<Answer> => {
    stats.bytesIn += body.length;
    try {
      if (faults.delayMs) await new Promise((resolve) => setTimeout(resolve, faults.delayMs));
      if (faults.status) return json(faults.status, errorJson(`ERR injected fault: status ${faults.status}`));
      if (route.kind === "pipeline" || route.kind === "multi-exec") {
        const commands = parsePipelineBody(body.toString("utf8"));
        const outcomes = await (route.kind === "pipeline" ? executor.pipeline(commands) : executor.transaction(commands));
        return json(200, `[${outcomes.map((outcome) => entryJson(outcome, route.base64)).join(",")}]`);
      }
      const command = route.kind === "single" ? parseCommandBody(body.toString("utf8")) : pathFormCommand(route.path, route.url.searchParams, body);
      const [outcome] = await executor.pipeline([command]);
      return json(outcome instanceof Error ? 400 : 200, entryJson(outcome!, route.base64));
    } catch (error) {
      return failure(error);
    }
  };

  return {
    head(method, target, requestHeaders) {
      if (method === "OPTIONS") {
        return {
          kind: "answer",
          answer: { status: 204, headers: headers("access-control-allow-methods", ALLOW, "access-control-allow-headers", ALLOW_HEADERS), body: "" },
        };
      }
      if (!ALLOWED_METHODS.has(method)) return refuse(405, `ERR method ${method} is not allowed`, "allow", ALLOW);
      const url = requestUrl(target);
      if (!url) return refuse(400, "ERR malformed request URL");
      if (!authorized(requestHeaders.authorization, url, tokenDigest)) return refuse(401, "Unauthorized");
      const format = requestHeaders["upstash-response-format"];
      if (format !== undefined && String(format).toLowerCase() !== "json") {
        return refuse(400, `ERR unsupported Upstash-Response-Format "${format}": this shim only answers json`);
      }
      try {
        const path = rawPath(target);
        const route = routeOf(path);
        if (route.kind === "subscribe") return route;
        const base64 = String(requestHeaders["upstash-encoding"] ?? "").toLowerCase() === "base64";
        return { kind: route.kind, url, path, base64 };
      } catch (error) {
        return { kind: "answer", answer: failure(error) };
      }
    },
    run,
    failure,
    headers,
    stats,
  };
}

type Route = { kind: CommandRoute["kind"] } | SubscribeRoute;

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
function requestUrl(target: string): URL | undefined {
  const fixed = FIXED_URLS.get(target);
  if (fixed) return fixed;
  try {
    // Prefixing keeps a path such as "//x" a path (new URL would read "x" as a host).
    return new URL(target.startsWith("/") ? `http://shim${target}` : target);
  } catch {
    return undefined;
  }
}

/**
 * The request target's path as sent: everything before its query (or a fragment, which no client
 * sends), after the scheme and host of an absolute-form target (RFC 9112 §3.2.2).
 */
function rawPath(target: string): string {
  const path = target.startsWith("/") ? target : target.replace(ABSOLUTE_FORM, "");
  const end = path.search(/[?#]/);
  return (end === -1 ? path : path.slice(0, end)) || "/";
}

/** `scheme://authority` at the start of an absolute-form request target. */
const ABSOLUTE_FORM = /^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i;

function authorized(header: string | string[] | undefined, url: URL, expected: Buffer): boolean {
  const bearer = typeof header === "string" ? /^Bearer\s+(.+)$/i.exec(header)?.[1] : undefined;
  const given = url.searchParams.get("_token") ?? bearer;
  // Compare fixed-length digests in constant time, so neither content nor length leaks.
  return given !== undefined && timingSafeEqual(digest(given), expected);
}

function digest(text: string): Buffer {
  // The one-shot hash: half the cost of createHash().update().digest(), on every request.
  return hash("sha256", text, "buffer") as unknown as Buffer;
}
