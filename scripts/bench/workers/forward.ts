/**
 * @module The forwarding step shared by the bench's Workers: the request goes to `ORIGIN_URL`
 * with its path and query, through `hono/proxy` (which handles hop-by-hop headers), exactly as
 * ratewall's skeleton forwards. Sharing it keeps the pass-through, the floor and the peer equal
 * in everything but the limiting.
 */
import { proxy } from "hono/proxy";

/**
 * Forwards `request` to the same path on `originUrl`.
 *
 * @example
 * app.all("*", (c) => forwardTo(c.req.raw, c.env.ORIGIN_URL));
 */
export function forwardTo(request: Request, originUrl: string): Promise<Response> {
  const target = new URL(request.url);
  const origin = new URL(originUrl);
  target.protocol = origin.protocol;
  target.host = origin.host;
  return proxy(target, { raw: request });
}
