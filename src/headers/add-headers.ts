/**
 * @module Adding headers to the answer a handler already produced. Hono's `c.header()` copies a
 * finished response once per header it sets; on the path of every allowed request that is one
 * `Response` copy per rate-limit header. The response's own headers are set in place instead, as
 * Hono's own middleware (`secure-headers`) does; only a response whose headers are immutable (a
 * `fetch` answer handed through as is) goes through `c.header()` and its copy.
 */
import type { Context } from "hono";
import type { HeaderList } from "./rate-limit-headers.ts";

/**
 * Sets every header of `headers` on `c.res`, in order.
 *
 * @example
 * await next();
 * addHeaders(c, [["RateLimit-Policy", '"default";q=100;w=60'], ["RateLimit", '"default";r=99;t=60']]);
 */
export function addHeaders(c: Context, headers: HeaderList): void {
  if (headers.length === 0) return;
  const target = c.res.headers;
  try {
    for (const [name, value] of headers) target.set(name, value);
  } catch {
    // Immutable headers refuse the first set, so nothing was changed: copy once through Hono.
    for (const [name, value] of headers) c.header(name, value);
  }
}
