/**
 * @module The bodies of ratewall's own answers (429, 503, 502, 504, 500, and the admin API's). RFC 9457 problem
 * details when the client accepts JSON (type `about:blank`, whose title is the status phrase,
 * §4.2.1), plain text otherwise, so that `curl` users read a sentence and API clients get an
 * object they can parse.
 */
import type { HeaderList } from "./headers/rate-limit-headers.ts";

const TITLES = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
} as const;

const ZERO_QUALITY = /^q=0(\.0*)?$/;
const JSON_TYPE = /^[a-z*]+\/([a-z0-9.!#$&^_-]+\+)?json$/;

/** The statuses ratewall answers with itself. */
export type OwnStatus = keyof typeof TITLES;

/**
 * Whether an `Accept` header asks for JSON (`application/json`, `application/problem+json`,
 * any `+json`), ignoring ranges with `q=0`. `*\/*` is not a request for JSON.
 */
function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(",").some((range) => {
    const [type = "", ...params] = range.split(";").map((part) => part.trim().toLowerCase());
    const refused = params.some((param) => ZERO_QUALITY.test(param));
    return !refused && JSON_TYPE.test(type);
  });
}

/**
 * One of ratewall's own answers, with the given headers. A 429's text body is exactly
 * `Too many requests`; the others say what failed.
 *
 * @example
 * problemResponse(429, 'Rate limit "default" exceeded; retry after 18 s.', c.req.header("accept"), headers);
 */
export function problemResponse(status: OwnStatus, detail: string, accept: string | undefined, headers: HeaderList = []): Response {
  if (acceptsJson(accept)) return problemJson(status, detail, headers);
  const text = status === 429 ? "Too many requests" : `${TITLES[status]}: ${detail}`;
  return new Response(text, { status, headers: withContentType("text/plain; charset=utf-8", headers) });
}

/**
 * RFC 9457 problem details, whatever the client accepts: for APIs whose every answer is JSON
 * (the admin API).
 *
 * @example
 * problemJson(404, 'Unknown route "lgoin" (routes: default, login).');
 */
export function problemJson(status: OwnStatus, detail: string, headers: HeaderList = []): Response {
  const body = JSON.stringify({ type: "about:blank", title: TITLES[status], status, detail });
  return new Response(body, { status, headers: withContentType("application/problem+json", headers) });
}

/**
 * The answer's headers as a `Headers`: workerd builds a response from one for about half of what
 * it takes to convert the same pairs given as an array of arrays (docs/performance.md, entry 12).
 */
function withContentType(contentType: string, headers: HeaderList): Headers {
  const all = new Headers();
  all.append("content-type", contentType);
  for (const [name, value] of headers) all.append(name, value);
  return all;
}
