/**
 * @module Bench Worker (a): a plain pass-through proxy. It measures what Miniflare, Hono and the
 * origin cost with no limiter at all.
 */
import { Hono } from "hono";
import { forwardTo } from "./forward.ts";

/** Bindings: where to forward. */
export interface PassThroughEnv {
  ORIGIN_URL: string;
}

const app = new Hono<{ Bindings: PassThroughEnv }>();

app.all("*", (c) => forwardTo(c.req.raw, c.env.ORIGIN_URL));

/** The Worker: every request goes to the origin. */
export default app;
