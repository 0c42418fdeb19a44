/**
 * @module Adding headers to the answer a handler already produced. Hono's `c.header()` copies a
 * finished response once per header it sets; on the path of every allowed request that is one
 * `Response` copy per rate-limit header. On workerd the response's own headers are set in place
 * instead, as Hono's own middleware (`secure-headers`) does; a response whose headers are
 * immutable (a `fetch` answer handed through as is) is copied once. Elsewhere it is always copied
 * once: @hono/node-server's lightweight `Response` drops headers set in place when it is wrapped
 * again (Hono's HEAD answer, `compress()`, `etag()`), and its copy of a `fetch` answer keeps the
 * immutable headers, which `c.header()` would then fail to set.
 */
import type { Context } from "hono";
import type { HeaderList } from "./rate-limit-headers.ts";

/** The fields that are Structured Field lists (RFC 9651 §3.1): another limit's items join them. */
const LISTS = new Set(["RateLimit", "RateLimit-Policy"]);

/**
 * Adds every header of `headers` to `c.res`, in order, keeping what the answer already says
 * ({@link mergeHeaders}).
 *
 * @example
 * await next();
 * addHeaders(c, [["RateLimit-Policy", '"default";q=100;w=60'], ["RateLimit", '"default";r=99;t=60']]);
 */
export function addHeaders(c: Context, headers: HeaderList): void {
  if (headers.length === 0) return;
  const target = c.res.headers;
  const merged = mergeHeaders(target, headers);
  const res = c.res;
  let copy: Response;
  if (IN_PLACE) {
    try {
      for (const [name, value] of merged) target.set(name, value);
      return;
    } catch {
      // Immutable headers refuse the first set, so nothing was changed: copied once.
    }
    // A Response as the init keeps what workerd adds to one: its webSocket, and a `manual`
    // encodeBody, without which a compressed body passed through would be compressed again.
    copy = new Response(res.body, res);
    for (const [name, value] of merged) copy.headers.set(name, value);
  } else {
    const headers = new Headers(target);
    for (const [name, value] of merged) headers.set(name, value);
    // @hono/node-server makes the real Response only when its body or statusText is read, and
    // refuses then a 204's or 304's "" body; copied twice, as `c.header()` does, the answer keeps
    // its Content-Length rather than go out chunked.
    const empty = NULL_BODY.includes(res.status);
    const once = new Response(empty ? null : res.body, { status: res.status, ...(empty ? {} : { statusText: res.statusText }), headers });
    copy = new Response(once.body, once);
  }
  // Unset first: Hono's `res` setter would otherwise copy the old headers back over the merged ones.
  c.res = undefined;
  c.res = copy;
}

/** Statuses whose answer has no body (RFC 9110 §15.3.5, §15.3.6, §15.4.5). */
const NULL_BODY = [204, 205, 304];

/** Whether headers set in place stay on the answer: on workerd, yes (see the module's doc). */
const IN_PLACE = (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === "Cloudflare-Workers";

/**
 * What to set on an answer that may already carry a limit's headers: those of another
 * `rateLimit()` nested inside this one (its 429 included) or of the origin's own limiter. The
 * draft's `RateLimit` and `RateLimit-Policy` are lists, so both limits' items are listed, the
 * answer's first. The legacy `X-RateLimit-*` describe one limit, the one with the least left
 * (README, "Headers"): the answer's are kept, and none of ours added, when its `Remaining` is a
 * count no greater than ours; otherwise all of ours replace them. Any other header the answer
 * already has is its own and is kept.
 *
 * @example
 * mergeHeaders(new Headers({ RateLimit: '"login";r=0;t=10' }), [["RateLimit", '"site";r=9;t=60']]);
 * // [["RateLimit", '"login";r=0;t=10, "site";r=9;t=60']]
 */
export function mergeHeaders(answer: Headers, headers: HeaderList): HeaderList {
  // The answer is asked only when ours hold legacy headers (not the default style's).
  const oursLeft = headers.find(([name]) => name === "X-RateLimit-Remaining")?.[1];
  const theirsLeft = oursLeft === undefined ? null : answer.get("X-RateLimit-Remaining");
  const keepTheirLegacy = theirsLeft !== null && COUNT.test(theirsLeft) && Number(theirsLeft) <= Number(oursLeft);
  const merged: HeaderList = [];
  for (const [name, value] of headers) {
    if (name.startsWith("X-RateLimit-")) {
      if (!keepTheirLegacy) merged.push([name, value]);
      continue;
    }
    const theirs = answer.get(name)?.trim();
    if (!theirs) merged.push([name, value]);
    else if (LISTS.has(name)) merged.push([name, `${theirs}, ${value}`]);
  }
  return merged;
}

/** A legacy `Remaining`: a count in digits. */
const COUNT = /^\d+$/;
