/**
 * @module Bench Worker (d): the closest peer, `@upstash/ratelimit`, in the small Hono Worker a
 * user would write from its README: one `Ratelimit` per rule, created once per isolate (so its
 * default ephemeral cache of refused clients works), the client keyed on `cf-connecting-ip`,
 * `pending` handed to `waitUntil`, and every option left at its default. A route with several
 * rules checks them together (`Promise.all`), which `@upstash/redis`'s default auto-pipelining
 * sends as one REST request: the fastest way to write it (checked in sequence, two rules cost two
 * round trips). Unlike ratewall this is not all-or-nothing: every rule is charged, even when
 * another refuses.
 *
 * Per-client tiers (`PEER_TIERS`) as a user of `@upstash/ratelimit` would write them: its
 * `dynamicLimits` is one global limit, so the client's tier is read with a GET of `peer-tier:<ip>`
 * (default `free`), then that tier's `Ratelimit` decides: two requests per decision.
 */
import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis/cloudflare";
import { Hono } from "hono";
import { forwardTo } from "./forward.ts";

/** One rule, as the bench configures both limiters. */
export interface PeerRule {
  algorithm: "fixed-window" | "sliding-window" | "token-bucket";
  limit: number;
  windowMs: number;
}

/** Bindings. `PEER_ROUTES` maps a path prefix to its rules, e.g. `{"/":[{…}],"/two":[{…},{…}]}`. */
export interface PeerEnv {
  ORIGIN_URL: string;
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
  PEER_ROUTES: string;
  /** Path prefix → tier → rule, e.g. `{"/pol/tiers":{"free":{…},"pro":{…}}}`. */
  PEER_TIERS?: string;
}

type Routes = Array<[prefix: string, limiters: Ratelimit[]]>;

let routes: Routes | undefined;
let tiered: { redis: Redis; paths: Array<[prefix: string, tiers: Map<string, Ratelimit>]> } | undefined;

function limiterFor(rule: PeerRule): Ratelimit["limiter"] {
  const window = `${rule.windowMs} ms` as const;
  if (rule.algorithm === "fixed-window") return Ratelimit.fixedWindow(rule.limit, window);
  if (rule.algorithm === "sliding-window") return Ratelimit.slidingWindow(rule.limit, window);
  // ratewall's "<count>/<window>" for a token bucket: a burst of count, count refilled per window.
  return Ratelimit.tokenBucket(rule.limit, window, rule.limit);
}

function buildRoutes(env: PeerEnv): Routes {
  const redis = new Redis({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN });
  const config = JSON.parse(env.PEER_ROUTES) as Record<string, PeerRule[]>;
  return Object.entries(config)
    .sort(([a], [b]) => b.length - a.length)
    .map(([prefix, rules]) => [prefix, rules.map((rule, i) => new Ratelimit({ redis, limiter: limiterFor(rule), prefix: `peer:${prefix}:${i}` }))]);
}

function buildTiers(env: PeerEnv): NonNullable<typeof tiered> {
  const redis = new Redis({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN });
  const config = JSON.parse(env.PEER_TIERS ?? "{}") as Record<string, Record<string, PeerRule>>;
  const paths = Object.entries(config).map(([prefix, tiers]): [string, Map<string, Ratelimit>] => [
    prefix,
    new Map(Object.entries(tiers).map(([tier, rule]) => [tier, new Ratelimit({ redis, limiter: limiterFor(rule), prefix: `peer:${prefix}:${tier}` })])),
  ]);
  return { redis, paths };
}

const app = new Hono<{ Bindings: PeerEnv }>();

app.all("*", async (c) => {
  routes ??= buildRoutes(c.env);
  tiered ??= buildTiers(c.env);
  const path = new URL(c.req.url).pathname;
  const client = c.req.header("cf-connecting-ip") ?? "unknown";
  const byTier = tiered.paths.find(([prefix]) => path.startsWith(prefix))?.[1];
  const tier = byTier && ((await tiered.redis.get<string>(`peer-tier:${client}`)) ?? "free");
  const limiters = byTier ? [byTier.get(tier!) ?? byTier.get("free")!] : (routes.find(([prefix]) => path.startsWith(prefix))?.[1] ?? []);
  const results = await Promise.all(limiters.map((limiter) => limiter.limit(client)));
  let refusedUntil = 0;
  for (const { success, reset, pending } of results) {
    c.executionCtx.waitUntil(pending);
    if (!success) refusedUntil = Math.max(refusedUntil, reset);
  }
  if (refusedUntil > 0) {
    const retryAfter = Math.max(1, Math.ceil((refusedUntil - Date.now()) / 1000));
    return c.text("Too many requests", 429, { "retry-after": String(retryAfter) });
  }
  return forwardTo(c.req.raw, c.env.ORIGIN_URL);
});

/** The Worker: `@upstash/ratelimit` in front of the origin. */
export default app;
