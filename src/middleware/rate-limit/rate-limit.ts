/**
 * @module `rateLimit(options)`: the Hono middleware. Per request (design.md, "The request path"):
 * match the route → identify the client → ask the block cache → one limiter call → headers →
 * `next()`, or a 429 thrown as `HTTPException` carrying its finished response (hono's basic-auth
 * style). `MODE=shadow` decides and logs but never refuses; `FAILURE_MODE` says what a Redis
 * failure does.
 */
import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { RouteSettings } from "../../config/types";
import { rateLimitHeaders, retryAfterSeconds } from "../../headers/rate-limit-headers";
import { identify } from "../../keys/identify";
import { createLimiter } from "../../limiter";
import type { Decision, ScriptRunner } from "../../limiter/types";
import { createRedisRunner } from "../../redis/client";
import { settingsFor, type Settings, type Vars } from "../../settings";
import { problemResponse } from "../../answers";
import { consoleLogger, describeFailure, type Logger, redact } from "./log";
import { buildRuntime, type CompiledRoute, type LimiterFactory, type Runtime } from "./runtime";

/** What the middleware leaves in `c.var.rateLimit` for later handlers (the proxy reads `route`). */
export interface RateLimitState {
  route: RouteSettings;
  /** Absent on unlimited routes and when Redis failed open. */
  decision?: Decision;
}

/** Options, validated when `rateLimit()` runs. Everything but `vars` is for tests and embedding. */
export interface RateLimitOptions {
  /**
   * The settings, as the Worker's env vars (README, "Configuration"). Omitted: read from `c.env`
   * on the first request, once per env object, so a Worker needs no options at all.
   */
  vars?: Vars;
  /** The `fetch` for Redis calls only. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Replaces the Upstash REST transport. @default createRedisRunner(url, token, timeout, fetch) */
  runner?: ScriptRunner;
  /** @default createLimiter from src/limiter */
  createLimiter?: LimiterFactory;
  /** The time in ms since the epoch, read once per request. @default Date.now */
  clock?: () => number;
  /** @default one JSON line per event on the console, with the token redacted */
  log?: Logger;
  /** Clients remembered as blocked, per isolate. @default 10000 */
  blockCacheSize?: number;
}

/**
 * Creates the middleware.
 *
 * @example
 * const app = new Hono();
 * app.use("/api/*", rateLimit({ vars: { UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token, RATE_LIMIT: "100/60s" } }));
 */
export function rateLimit(options: RateLimitOptions = {}): MiddlewareHandler<{ Variables: { rateLimit?: RateLimitState } }> {
  const clock = options.clock ?? Date.now;
  const runtimes = new WeakMap<Settings, Runtime & { log: Logger }>();
  const runtimeFor = (settings: Settings) => {
    let runtime = runtimes.get(settings);
    if (!runtime) {
      const runner = options.runner ?? createRedisRunner({ ...settings.redis, fetch: options.fetch });
      const built = buildRuntime(settings, { runner, createLimiter: options.createLimiter ?? createLimiter, blockCacheSize: options.blockCacheSize ?? 10_000 });
      runtime = { ...built, log: redact(options.log ?? consoleLogger, settings.redis.token) };
      runtimes.set(settings, runtime);
    }
    return runtime;
  };
  // Given vars are validated now, so a bad config fails at startup rather than on a request.
  const fixed = options.vars ? runtimeFor(settingsFor(options.vars)) : undefined;

  return async function rateLimit(c, next) {
    const runtime = fixed ?? runtimeFor(settingsFor((c.env as object | undefined) ?? NO_ENV));
    const { settings, log } = runtime;
    const route = runtime.match(new URL(c.req.url)) ?? runtime.defaultRoute;
    c.set("rateLimit", { route: route.settings });
    if (!route.limiter) return next();

    const now = clock();
    const identity = await identify(c.req.raw.headers, route.identify);
    if (identity.warning && !runtime.warned.has(identity.warning)) {
      runtime.warned.add(identity.warning);
      log({ level: "warn", event: "client-fallback", reason: identity.warning, client: identity.client, route: route.settings.pattern });
    }
    const enforce = route.settings.mode === "enforce";
    const blockKey = `${route.settings.scope}\n${identity.client}`;
    let decision = enforce ? fromBlockCache(runtime, blockKey, now) : undefined;
    if (!decision) {
      try {
        decision = await route.limiter.limit({ client: identity.client, scope: route.settings.scope, cost: route.settings.cost, now });
      } catch (error) {
        return redisFailed(error, route);
      }
      // Blocked until the limiter's exact retry time when it gives one, else the announced Retry-After.
      if (!decision.allowed && enforce) runtime.blocks.set(blockKey, { until: decision.retryAt ?? now + retryAfterSeconds(decision, now) * 1000, decision });
    }
    c.set("rateLimit", { route: route.settings, decision });
    // In shadow a refused request still passes: RateLimit says so, but Retry-After (RFC 9110
    // §10.2.3) belongs to answers that ask the client to wait, and this one does not.
    const all = rateLimitHeaders(decision, route.policy, now, settings.headers);
    const headers = enforce ? all : all.filter(([name]) => name !== "Retry-After");
    if (!decision.allowed) {
      if (enforce) {
        const detail = `Rate limit "${decision.rule}" exceeded; retry after ${retryAfterSeconds(decision, now)} s.`;
        throw new HTTPException(429, { res: problemResponse(429, detail, c.req.header("accept"), headers) });
      }
      log({ level: "info", event: "shadow-refusal", route: route.settings.pattern, client: identity.client, rule: decision.rule });
    }
    await next();
    for (const [name, value] of headers) c.header(name, value);

    async function redisFailed(error: unknown, failed: CompiledRoute) {
      log({ level: "error", event: "redis-failure", failureMode: settings.failureMode, route: failed.settings.pattern, ...describeFailure(error) });
      if (settings.failureMode === "closed") {
        throw new HTTPException(503, { res: problemResponse(503, "The rate limiter is unavailable; try again shortly.", c.req.header("accept")) });
      }
      return next();
    }
  };
}

/** Stands for a missing `c.env` (Hono outside Workers): settings then fail with a clear message. */
const NO_ENV = Object.freeze({});

/** A refusal from memory, its Retry-After counted down to the block's end. */
function fromBlockCache(runtime: Runtime, key: string, now: number): Decision | undefined {
  const block = runtime.blocks.get(key, now);
  if (!block) return undefined;
  return { ...block.decision, retryAfter: Math.ceil((block.until - now) / 1000), reason: "block-cache" };
}
