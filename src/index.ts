/**
 * @module The ratewall Worker's entry point.
 */
import { Hono } from "hono";
import { proxy } from "hono/proxy";

const app = new Hono<{ Bindings: Env }>();

app.all("*", (c) => {
  const target = new URL(c.req.url);
  if (c.env.ORIGIN_URL) {
    const origin = new URL(c.env.ORIGIN_URL);
    target.protocol = origin.protocol;
    target.host = origin.host;
  }
  return proxy(target, { raw: c.req.raw });
});

export default app satisfies ExportedHandler<Env>;
