/**
 * @module Bench Worker (b): the physical floor of a Redis-backed limiter. Before forwarding, it
 * makes the one HTTP round trip to the REST endpoint that any such limiter must make (a `PING`,
 * the cheapest command), with a bare `fetch`: no client library, no script, no parsing beyond
 * the status.
 */
import { Hono } from "hono";
import { forwardTo } from "./forward.ts";

/** Bindings: the origin and the REST endpoint. */
export interface FloorEnv {
  ORIGIN_URL: string;
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
}

const app = new Hono<{ Bindings: FloorEnv }>();

app.all("*", async (c) => {
  const ping = await fetch(c.env.UPSTASH_REDIS_REST_URL, {
    method: "POST",
    headers: { authorization: `Bearer ${c.env.UPSTASH_REDIS_REST_TOKEN}` },
    body: '["PING"]',
  });
  // Read the body so the connection goes back to the pool, as a real client's would.
  await ping.arrayBuffer();
  if (!ping.ok) return c.text(`REST endpoint answered ${ping.status}`, 502);
  return forwardTo(c.req.raw, c.env.ORIGIN_URL);
});

/** The Worker: one PING per request, then the origin. */
export default app;
