/**
 * @module Forwarding an allowed request to its origin, on top of `hono/proxy` (which drops the
 * hop-by-hop headers of RFC 9110 §7.6.1 both ways and streams the body). On top of it: the
 * headers named in `Connection` are dropped too, internal headers never leave, the origin is
 * bounded by a timeout (ky's timeout.ts: an AbortController raced against the call), and failures
 * become an {@link OriginError} that `app.onError` turns into 502 or 504.
 */
import { proxy } from "hono/proxy";
import { OriginError } from "../errors.ts";

/** Request headers that are ours, or Upstash's, and never the origin's business. */
const INTERNAL_HEADER = /^(x-ratewall-|upstash-)/i;
const TOKEN = /^[!#$%&'*+\-.0-9A-Z^_`a-z|~]+$/;
/** Origins parsed once per isolate: the configured ones are few and fixed; the cap bounds the rest. */
const originBases = new Map<string, URL>();
const MAX_CACHED_ORIGINS = 64;

/** Where and how to forward. */
export interface ForwardOptions {
  /** Replaces the scheme, host and port (and prefixes its path, if any); unset keeps the request's own URL. */
  origin?: string;
  /** Bound on the origin's answer, up to its response headers; the body then streams unbounded. */
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
  const url = new URL(request.url);
  const target = targetUrl(url, options.origin);
  // Without ORIGIN_URL the request's own URL is the origin, which is right on a zone route; on
  // workers.dev that URL is this Worker, and fetching it would only loop back here.
  if (!options.origin && target.hostname.endsWith(".workers.dev")) throw new OriginError("none", target.origin);
  const headers = forwardedHeaders(request.headers, url);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  try {
    // A copy of the request with our headers: hono/proxy then drops the hop-by-hop ones from it.
    return await proxy(target, {
      raw: new Request(request, { headers }),
      signal: controller.signal,
      ...(options.fetch ? { customFetch: options.fetch } : {}),
    });
  } catch (error) {
    throw new OriginError(controller.signal.aborted ? "timeout" : "network", target.origin, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

/** The URL the origin sees: path and query exactly as the client sent them. */
export function targetUrl(url: URL, origin: string | undefined): URL {
  if (!origin) return url;
  const base = originBase(origin);
  const target = new URL(url);
  target.protocol = base.protocol;
  target.host = base.host;
  if (base.pathname !== "/") target.pathname = `${base.pathname.replace(/\/$/, "")}${url.pathname}`;
  return target;
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

/** `url` is the request's own, parsed once by the caller. */
function forwardedHeaders(requestHeaders: Headers, url: URL): Headers {
  const headers = new Headers(requestHeaders);
  // RFC 9110 §7.6.1: a header listed in Connection is hop-by-hop too.
  for (const name of (headers.get("connection") ?? "").split(",")) if (TOKEN.test(name.trim())) headers.delete(name.trim());
  for (const name of [...headers.keys()]) if (INTERNAL_HEADER.test(name)) headers.delete(name);
  // The origin's own host comes from the target URL; keep the one the client asked for.
  headers.delete("host");
  headers.set("x-forwarded-host", url.host);
  headers.set("x-forwarded-proto", url.protocol.slice(0, -1));
  return headers;
}
