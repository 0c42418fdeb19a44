/**
 * @module Forwarding an allowed request to its origin, as `hono/proxy` does (the hop-by-hop
 * headers of RFC 9110 §7.6.1 dropped both ways, `Accept-Encoding` left to the runtime, the body
 * streamed) with one copy of the headers each way and one `Request` per call, since this runs on
 * every allowed request. On top of it: the headers named in `Connection` are dropped too (where
 * the runtime shows `Connection` at all: workerd removes it first), internal headers never leave,
 * a path cannot climb above an origin's path prefix, an origin's redirect of its prefix's root to
 * the prefix without its slash is followed (the one redirect the client could not follow without
 * coming back to it), the origin is bounded by a timeout (ky's
 * timeout.ts: an AbortController raced against the call), and failures become an
 * {@link OriginError} that `app.onError` turns into 502 or 504.
 */
import { OriginError } from "../errors.ts";
import { TOKEN } from "../headers/header-value.ts";
import { climbsAboveRoot, TRAILING_DOTS } from "../routing/normalize.ts";

/**
 * Request headers that are ours, or Upstash's, and never the origin's business; two the origin
 * gets from elsewhere: `host` from the target URL, `accept-encoding` from the runtime, which
 * negotiates the encoding itself and hands a `gzip` or `br` body on decoded (as `hono/proxy`
 * does; see {@link answerHeaders} for the others); and
 * `expect`: the runtime already met the client's `100-continue` (RFC 9110 §10.1.1) and streams
 * the body on, and forwarded, it makes `fetch` resolve to the origin's interim 100, which no
 * `Response` can carry (every upload curl sends over 1 MB was a 502).
 */
const NOT_FORWARDED = "x-ratewall-.*|upstash-.*|host|accept-encoding|expect";
/**
 * Never forwarded, in either direction: `hono/proxy`'s list, and `proxy-connection`, which RFC
 * 9110 §7.6.1 names among the fields an intermediary removes (older clients send it in place of
 * `Connection`). The one exception is a request's `Upgrade: websocket` ({@link dropHopByHop}).
 */
const HOP_BY_HOP = "connection|keep-alive|proxy-authenticate|proxy-authorization|proxy-connection|te|trailer|transfer-encoding|upgrade";
/** What a request loses on its way to the origin, in one pattern: one test per header name. */
const REQUEST_DROPPED = new RegExp(`^(?:${HOP_BY_HOP}|${NOT_FORWARDED})$`);
/**
 * What an answer loses on its way to the client: also `x-ratewall-` headers, which only ratewall
 * writes (an origin's `x-ratewall-admin` would pass its answer off as the admin API's).
 */
const ANSWER_DROPPED = new RegExp(`^(?:${HOP_BY_HOP}|x-ratewall-.*)$`);
/**
 * Marks a request this isolate forwarded to the request's own URL (no origin set) on a local host
 * with the isolate's random id, so that one which comes back (`wrangler dev` without `ORIGIN_URL`:
 * the request's own URL is the Worker) is answered 502 on its second pass instead of looping until
 * the limit is spent. A zone route's host is a domain, never marked: its origin gets no such
 * header, and a Worker's fetch to its own zone goes to the origin and never comes back. Forwarding
 * drops any `x-ratewall-` header a client sends.
 */
const FORWARDED_BY = "x-ratewall-forwarded-by";
/**
 * Hosts no zone route can have: `localhost`, `*.localhost` (RFC 6761 §6.3), IP literals; a port
 * and a host's trailing dots (RFC 1034 §3.1) aside.
 */
const LOCAL_HOST = /^(?:(?:[^:]*\.)?localhost\.*|\d+\.\d+\.\d+\.\d+|\[[0-9a-f:.]+\])(?::\d+)?$/i;
let isolateId: string | undefined;
/** Origins parsed once per isolate: the configured ones are few and fixed; the cap bounds the rest. */
const originBases = new Map<string, URL>();
const MAX_CACHED_ORIGINS = 64;

/** Where and how to forward. */
export interface ForwardOptions {
  /** Replaces the scheme, host and port (and prefixes its path, if any); unset keeps the request's own URL. */
  origin?: string;
  /**
   * Bound from the call to the origin's response headers, the whole upload of the request's body
   * included (an origin answers once it has read it); the answer's body then streams unbounded.
   */
  timeoutMs: number;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

/**
 * Forwards `request` and returns the origin's answer.
 *
 * @example
 * const res = await forwardToOrigin(c.req.raw, { origin: "https://origin.example.com", timeoutMs: 30_000 });
 */
export async function forwardToOrigin(request: Request, options: ForwardOptions): Promise<Response> {
  const url = urlParts(request.url);
  const base = options.origin ? originBase(options.origin) : undefined;
  const target = targetUrl(url, options.origin);
  const targetOrigin = base ? base.origin : url.origin;
  if (base && base.pathname !== "/" && climbsAboveRoot(url.pathAndQuery)) throw new OriginError("outside", targetOrigin);
  const mark = options.origin ? undefined : refuseSelf(request, url.host, targetOrigin);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  try {
    // Each copy below copies the headers once, and the copy is then edited in place: building
    // the headers first and handing them over would copy them twice.
    const method = request.method;
    // A client may send a GET or HEAD with a body (curl -X GET -d, an empty chunked body), which
    // has no defined meaning (RFC 9110 §9.3.1, §9.3.2) and which `fetch` refuses to send at all:
    // the origin gets the request without it. Checked only when there is a body.
    let body = request.body;
    if (body !== null && (method === "GET" || method === "HEAD")) body = null;
    // `manual`: an origin's redirect is its answer to the client, passed on with its Location
    // and Set-Cookie (RFC 9110 §15.4); followed here, the client would get the target's answer
    // instead, the client's Cookie and API key would go to whatever host Location names, and a
    // 307 to a POST would fail on the body already streamed.
    const init = {
      method,
      headers: request.headers,
      body,
      redirect: "manual",
      signal: controller.signal,
      ...(body ? { duplex: "half" } : {}),
    };
    const outgoing = new Request(target, init as RequestInit);
    forwardedHeaders(outgoing.headers, url);
    if (mark !== undefined) outgoing.headers.set(FORWARDED_BY, mark);
    const send = options.fetch ?? fetch;
    let response = await send(outgoing);
    const bare = base && base.pathname !== "/" && body === null ? redirectToBarePrefix(response, url, base, target) : undefined;
    if (bare) {
      // Unread, the redirect's body would hold the origin's connection until collected; a body
      // that already failed has nothing to release.
      response.body?.cancel().catch(() => {});
      response = await send(new Request(bare, outgoing));
    }
    // workerd's fetch can resolve with an interim answer (103 Early Hints, RFC 8297), which no
    // Response may carry (200 to 599) and after which it gives no final one. A 101 is the
    // WebSocket handshake's final answer, passed on with its socket.
    if (response.status < 200 && response.status !== 101) throw new OriginError("interim", targetOrigin);
    const answer = new Response(response.body, response);
    const namesUrl = answerHeaders(answer.headers);
    if (base && namesUrl) {
      // Any answer may name the origin's own URL (a 201's Location, RFC 9110 §10.2.2; Content-Location, §8.7), not only a redirect.
      publicLocation(answer.headers, "location", url, base);
      publicLocation(answer.headers, "content-location", url, base);
    }
    return answer;
  } catch (error) {
    if (error instanceof OriginError) throw error;
    throw new OriginError(controller.signal.aborted ? "timeout" : "network", targetOrigin, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Without ORIGIN_URL the request's own URL is the origin, which is right on a zone route; on
 * workers.dev, and under `wrangler dev` on a local host, that URL is this Worker, and fetching it
 * would only loop back here. Returns the id to mark the forwarded request with, on a local host.
 */
function refuseSelf(request: Request, host: string, targetOrigin: string): string | undefined {
  if (host.replace(/:\d+$/, "").replace(TRAILING_DOTS, "").endsWith(".workers.dev")) throw new OriginError("none", targetOrigin);
  if (!LOCAL_HOST.test(host)) return undefined;
  // Generated on the first request: Workers refuse random values at startup.
  isolateId ??= crypto.randomUUID();
  if (request.headers.get(FORWARDED_BY) === isolateId) throw new OriginError("loop", targetOrigin);
  return isolateId;
}

/**
 * The URL the origin sees: path and query exactly as the client sent them, on `origin` (its path
 * a prefix) if given. Built as text: copying a `URL` and setting its parts costs more.
 *
 * @example
 * targetUrl(urlParts("https://a.test/x?y=1"), "https://b.test/api/"); // → "https://b.test/api/x?y=1"
 */
export function targetUrl(url: UrlParts, origin: string | undefined): string {
  if (!origin) return `${url.origin}${url.pathAndQuery}`;
  const base = originBase(origin);
  return `${base.origin}${base.pathname === "/" ? "" : base.pathname.replace(/\/$/, "")}${url.pathAndQuery}`;
}

/** What {@link urlParts} slices from a request's URL. */
export interface UrlParts {
  /** `https`, without the colon. */
  protocol: string;
  /** Host and port, as `URL.host`. */
  host: string;
  origin: string;
  /** From the first `/` of the path, query included, fragment dropped. */
  pathAndQuery: string;
}

/**
 * The parts of a request's URL the forwarder needs, sliced from its text: `Request.url` is the
 * runtime's serialization of an already parsed http(s) URL (WHATWG URL §4.5: scheme, `//`,
 * optional userinfo, host, path from its first `/`), so parsing it again would cost a `URL` on
 * every allowed request for nothing. The fragment, which is never sent, is dropped.
 *
 * @example
 * urlParts("https://a.test:8443/x?y=1#f"); // → { protocol: "https", host: "a.test:8443", origin: "https://a.test:8443", pathAndQuery: "/x?y=1" }
 */
export function urlParts(href: string): UrlParts {
  const authorityAt = href.indexOf("//") + 2;
  const slash = href.indexOf("/", authorityAt);
  const pathAt = slash < 0 ? href.length : slash;
  const authority = href.slice(authorityAt, pathAt);
  const host = authority.slice(authority.lastIndexOf("@") + 1);
  const hash = href.indexOf("#", pathAt);
  const pathAndQuery = href.slice(pathAt, hash < 0 ? href.length : hash) || "/";
  return { protocol: href.slice(0, authorityAt - 3), host, origin: `${href.slice(0, authorityAt)}${host}`, pathAndQuery };
}

/** The parsed origin; read only, never mutated, since it is shared between requests. */
function originBase(origin: string): URL {
  let base = originBases.get(origin);
  if (base === undefined) {
    base = new URL(origin);
    if (originBases.size < MAX_CACHED_ORIGINS) originBases.set(origin, base);
  }
  return base;
}

/**
 * A `Location` or `Content-Location` (header `name`) on the origin itself, pointed at where the
 * client sent the request, as a reverse proxy does (nginx's `proxy_redirect default`): the
 * origin's host, or its path under the origin's path prefix, means nothing to the client, and an
 * absolute one would send it past the limiter, straight to the origin. One elsewhere, or a
 * relative one without a leading `/`, is left as it is.
 */
function publicLocation(headers: Headers, name: "location" | "content-location", url: UrlParts, base: URL): void {
  const location = headers.get(name);
  if (!location || !(location.startsWith("/") || /^https?:/i.test(location))) return;
  let resolved: URL;
  try {
    resolved = new URL(location, base);
  } catch {
    return;
  }
  const prefix = base.pathname.replace(/\/$/, "");
  if (resolved.origin !== base.origin || (prefix && resolved.pathname !== prefix && !resolved.pathname.startsWith(`${prefix}/`))) return;
  const path = `${resolved.pathname.slice(prefix.length) || "/"}${resolved.search}${resolved.hash}`;
  // An absolute-path or scheme-relative reference stays relative: the client resolves it against its own URL.
  headers.set(name, location.startsWith("/") ? path : `${url.origin}${path}`);
}

/**
 * The client's root reaches an origin's path prefix with its slash (`/base/`). An origin that
 * serves its root only without one (Next.js's `basePath`) redirects there, to a URL that no client
 * URL reaches: pointed back at the client's root ({@link publicLocation}), the client would come
 * round again for ever. Returns that redirect's target, which the caller follows itself, once, for
 * a request without a body (a body could not be sent twice); any other answer goes to the client.
 */
function redirectToBarePrefix(response: Response, url: UrlParts, base: URL, target: string): string | undefined {
  // The status and the client's path first: every answer of a prefixed origin comes through here,
  // and only a redirect of the root needs its Location read.
  if (response.status < 301 || response.status > 308 || !/^\/(\?|$)/.test(url.pathAndQuery)) return;
  const location = response.headers.get("location");
  if (!location || !URL.canParse(location, target)) return;
  const to = new URL(location, target);
  if (to.origin === base.origin && `${to.pathname}/` === base.pathname.replace(/\/?$/, "/")) return to.href;
}

/** Edits a copy of the client's headers into the origin's; `url` is the request's own. */
function forwardedHeaders(headers: Headers, url: UrlParts): void {
  dropHopByHop(headers, REQUEST_DROPPED, true);
  // The origin's own host comes from the target URL; keep the one the client asked for.
  headers.set("x-forwarded-host", url.host);
  headers.set("x-forwarded-proto", url.protocol);
}

/**
 * Edits a copy of the origin's headers: no hop-by-hop ones, and no encoding the runtime already
 * undid. workerd's `fetch` decodes a body whose `Content-Encoding` is exactly `gzip` or `br` (the
 * latter under `brotli_content_encoding`, on by default since 2024-04-29) and keeps the header and
 * the encoded length, which then describe bytes the body no longer has; `hono/proxy`, which this
 * follows, drops both for that reason. Any other value (`deflate`, `gzip, gzip`, `GZIP`) it leaves
 * encoded, and then the header is the only way the client can decode it (RFC 9110 §8.4). Returns
 * whether the answer has a `Location` or `Content-Location`, which may name the origin.
 */
function answerHeaders(headers: Headers): boolean {
  const namesUrl = dropHopByHop(headers, ANSWER_DROPPED);
  const encoding = headers.get("content-encoding");
  if (encoding === "gzip" || encoding === "br") {
    headers.delete("content-encoding");
    headers.delete("content-length");
  }
  return namesUrl;
}

/**
 * Drops the headers `dropped` matches (the hop-by-hop ones among them) and every header that
 * `Connection` names (RFC 9110 §7.6.1), in one pass over the names present (a `delete` per absent
 * name costs as much). With `keepWebSocket`, an `Upgrade: websocket` stays: Workers proxy a
 * WebSocket (RFC 6455 §4.1) by forwarding that header, and the runtime makes the handshake with
 * the origin itself. Returns whether a `Location` or `Content-Location` is among the names, seen
 * in the same pass (each `get` is a call into the runtime).
 */
function dropHopByHop(headers: Headers, dropped: RegExp, keepWebSocket = false): boolean {
  const connection = headers.get("connection");
  const listed = connection
    ? connection
        .split(",")
        .map((name) => name.trim().toLowerCase())
        .filter((name) => TOKEN.test(name))
    : [];
  const drop: string[] = [];
  let namesUrl = false;
  for (const name of headers.keys()) {
    if (name === "location" || name === "content-location") namesUrl = true;
    if (!(dropped.test(name) || listed.includes(name))) continue;
    // Looked up only for a request that has the header at all.
    if (keepWebSocket && name === "upgrade" && headers.get(name)!.toLowerCase() === "websocket") continue;
    drop.push(name);
  }
  for (const name of drop) headers.delete(name);
  return namesUrl;
}
