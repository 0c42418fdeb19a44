/**
 * @module Bench Worker (e): the least a Worker can do to make ratewall's decision. It sends
 * ratewall's own single-rule fixed-window script (src/limiter/fixed-window/script.ts) with the
 * keys and arguments ratewall's limiter sends (layout in src/limiter/assemble-script.ts), by a bare
 * `fetch` (EVALSHA, EVAL on NOSCRIPT), reads the remaining count from the reply, adds the two draft
 * headers and forwards like the floor. No routes, lists, tiers, block cache, events, timeouts or
 * header hygiene: so lean / floor is what the decision itself costs, and ratewall / lean what
 * ratewall's Worker adds around it.
 */
import { Hono } from "hono";
import { sha1, source } from "../../../src/limiter/fixed-window/script.ts";
import { forwardTo } from "./forward.ts";

/** Bindings: the origin, the REST endpoint and the one rule. */
export interface LeanEnv {
  ORIGIN_URL: string;
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
  /** Requests per window. */
  LEAN_LIMIT: string;
  LEAN_WINDOW_MS: string;
  KEY_PREFIX: string;
}

const app = new Hono<{ Bindings: LeanEnv }>();

app.all("*", async (c) => {
  const now = Date.now();
  const limit = Number(c.env.LEAN_LIMIT);
  const windowMs = Number(c.env.LEAN_WINDOW_MS);
  const client = c.req.header("cf-connecting-ip") ?? "";
  const index = Math.floor(now / windowMs);
  // KEYS: the client's list entry, then the window's counter; ARGV: now, cost, no tiers, one group
  // of one rule (tag, limit, window, burst, buckets).
  const keys = [`${c.env.KEY_PREFIX}:list:{${client}}`, `${c.env.KEY_PREFIX}:fixed:{${client}}:${index}`];
  const args = [now, 1, "", "", 1, "fixed", limit, windowMs, limit, 1];
  const send = (command: unknown[]) =>
    fetch(c.env.UPSTASH_REDIS_REST_URL, {
      method: "POST",
      headers: { authorization: `Bearer ${c.env.UPSTASH_REDIS_REST_TOKEN}` },
      body: JSON.stringify(command),
    }).then((response) => response.json() as Promise<{ result?: number[]; error?: string }>);
  let answer = await send(["evalsha", sha1, keys.length, ...keys, ...args]);
  if (answer.error?.startsWith("NOSCRIPT")) answer = await send(["eval", source, keys.length, ...keys, ...args]);
  if (!answer.result) return c.text(`REST endpoint answered ${answer.error}`, 502);
  // Reply: verdict, group, list TTL, then ok, remaining, reset at, retry in.
  const [verdict, , , , remaining = 0, resetAt = now] = answer.result;
  if (verdict === 0) return c.text("Too Many Requests", 429);
  const response = await forwardTo(c.req.raw, c.env.ORIGIN_URL);
  response.headers.set("RateLimit-Policy", `"default";q=${limit};w=${Math.ceil(windowMs / 1000)}`);
  response.headers.set("RateLimit", `"default";r=${remaining};t=${Math.ceil((resetAt - now) / 1000)}`);
  return response;
});

export default app;
