/**
 * @module `createApp(deps)`: the only module that knows every other one. It composes the admin
 * API (src/admin, on only with `ADMIN_TOKEN`), the rate-limit middleware and the origin forwarder, and maps internal errors to answers in one
 * `app.onError` (envoy's single handling point).
 */
// The preset with PatternRouter alone: the app registers two middlewares and one catch-all
// handler, so the default preset's SmartRouter (RegExpRouter and TrieRouter) would only add
// 5.9 KB minified, 2.4 KB gzipped, to every cold start. hono.dev/api/presets: "The Hono class
// imported from all presets is the same, the only difference being the router."
import type { Context } from "hono";
import { Hono } from "hono/tiny";
import { HTTPException } from "hono/http-exception";
import { problemResponse } from "./answers.ts";
import type { Settings } from "./config/types.ts";
import { ConfigError, OriginError } from "./errors.ts";
import { consoleLogger, logThrottled, redact, unfailing } from "./middleware/rate-limit/log.ts";
import { adminApi } from "./admin/admin-api.ts";
import type { RateLimitOptions, RateLimitState } from "./middleware/rate-limit/index.ts";
import { rateLimitWith } from "./middleware/rate-limit/rate-limit.ts";
import { createRuntimes, logOnce } from "./middleware/rate-limit/runtime.ts";
import { forwardToOrigin } from "./proxy/forward.ts";

/** The Worker's Hono environment. */
export interface AppEnv {
  Bindings: Env;
  Variables: { rateLimit?: RateLimitState };
}

/** What the app talks to; every field defaults to the real thing. */
export interface AppDeps extends Omit<RateLimitOptions, "fetch" | "clientAddress"> {
  /** The `fetch` for Redis calls only. @default globalThis.fetch */
  redisFetch?: typeof fetch;
  /** The `fetch` for the origin only, so a fake origin never swallows Redis calls. @default globalThis.fetch */
  originFetch?: typeof fetch;
}

/**
 * Creates the Worker's app. Without `deps.vars`, settings come from `env`, parsed once per env.
 *
 * @example
 * export default createApp() satisfies ExportedHandler<Env>;
 * // in a test: createApp({ vars: { ...env, RATE_LIMIT: "5/10s" }, clock: () => now })
 */
export function createApp(deps: AppDeps = {}): Hono<AppEnv> {
  const { redisFetch, originFetch, ...options } = deps;
  // One runtime per settings for the admin API and the limiter: a reset clears the block cache
  // that the limiter reads.
  const runtimes = createRuntimes({ ...options, fetch: redisFetch });
  const baseLog = deps.log ?? consoleLogger;
  const app = new Hono<AppEnv>();

  app.use(adminApi(runtimes));
  app.use(rateLimitWith(runtimes, { throwRefusals: false }));
  /** The origin a request goes to: its route's, else ORIGIN_URL; undefined for the request's own URL. */
  const originOf = (c: Context<AppEnv>, settings: Settings) => c.get("rateLimit")?.route.origin ?? settings.defaultRoute.origin;
  app.all("*", function forward(c) {
    const { settings } = runtimes(c.env);
    return forwardToOrigin(c.req.raw, { origin: originOf(c, settings), timeoutMs: settings.originTimeoutMs, fetch: originFetch });
  });

  app.onError(function answerError(error, c) {
    const accept = c.req.header("accept");
    if (error instanceof HTTPException) return error.getResponse();
    // Scrubbed like the middleware's lines: a cause's message (an origin's error, say) may quote
    // anything. Read raw, not from settings, which may be what failed.
    const vars = deps.vars ?? c.env;
    const log = unfailing(redact(redact(baseLog, String(vars?.UPSTASH_REDIS_REST_TOKEN ?? "").trim()), String(vars?.ADMIN_TOKEN ?? "")));
    if (error instanceof OriginError && error.kind === "outside") {
      // The client's doing, not the origin's failure: once per isolate, as ambiguous-path, since a
      // route that counts nothing would let a client write one line per request.
      logOnce(runtimes(c.env), "path-above-origin", { level: "warn", event: "path-above-origin", path: new URL(c.req.url).pathname, origin: error.origin });
      return problemResponse(400, "The path climbs above the origin's path as an origin reads it.", accept);
    }
    if (error instanceof OriginError) {
      // As redis-failure: one line per origin and kind every 10 s, so that an origin's outage does
      // not write one per request. Keyed by the configured origin, a bounded set: without one,
      // each host a client names is an origin of its own.
      const runtime = runtimes(c.env);
      const cause = String((error.cause as Error)?.message ?? "");
      const entry = { level: "error", event: "origin-failure", kind: error.kind, origin: error.origin, cause } as const;
      logThrottled(log, runtime.originLines, originOf(c, runtime.settings) ?? "", runtime.clock(), entry);
      if (error.kind === "timeout") return problemResponse(504, "The origin did not answer within the timeout (ORIGIN_TIMEOUT_MS).", accept);
      return problemResponse(
        502,
        error.kind === "none" || error.kind === "loop"
          ? "No origin is configured (ORIGIN_URL)."
          : error.kind === "interim"
            ? "The origin's answer began with an interim (1xx) response."
            : "The origin could not be reached.",
        accept,
      );
    }
    // The message names a variable and a value, never the token (see settings.ts); it is
    // logged in full and kept out of the answer, which any client can read.
    log({ level: "error", event: error instanceof ConfigError ? "config-error" : "internal-error", cause: error.message });
    return problemResponse(500, error instanceof ConfigError ? "ratewall is misconfigured; see the Worker's logs." : "Unexpected error.", accept);
  });
  return app;
}
