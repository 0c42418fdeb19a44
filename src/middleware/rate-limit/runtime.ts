/**
 * @module Everything the middleware builds once per settings (design.md: "everything that can be
 * done once per isolate is done once"): the route matcher; per route one limiter, one
 * `RateLimit-Policy` string and the client-identification options; the block cache, the Redis runner.
 */
import { createBlockCache, type BlockCache } from "../../block-cache";
import type { RouteSettings, Settings } from "../../config/types";
import { ConfigError } from "../../errors";
import { policyHeader } from "../../headers/rate-limit-headers";
import type { IdentifyOptions } from "../../keys/identify";
import type { Limiter, Rule, ScriptRunner } from "../../limiter/types";
import { compileRoutes, type RouteMatcher } from "../../routing/match";

/** A route ready for requests. */
export interface CompiledRoute {
  settings: RouteSettings;
  /** Absent for an unlimited route. */
  limiter?: Limiter;
  /** The route's `RateLimit-Policy` value. */
  policy: string;
  /** How the route's clients are identified: its key source with the isolate's IP settings. */
  identify: IdentifyOptions;
}

/** The per-settings state of the middleware. */
export interface Runtime {
  settings: Settings;
  match: RouteMatcher<CompiledRoute>;
  defaultRoute: CompiledRoute;
  blocks: BlockCache;
  /** Fallback kinds already logged in this isolate: each is worth one line, not one per request. */
  warned: Set<string>;
}

/** How limiters are made: `createLimiter` from src/limiter, or a fake in unit tests. */
export type LimiterFactory = (rules: Rule[], deps: { runner: ScriptRunner; prefix: string }) => Limiter;

/**
 * Builds the runtime. A rule the limiter rejects becomes a {@link ConfigError} that names where
 * the rule was written.
 *
 * @example
 * const runtime = buildRuntime(readSettings(env), { runner, createLimiter, blockCacheSize: 10_000 });
 */
export function buildRuntime(settings: Settings, deps: { runner: ScriptRunner; createLimiter: LimiterFactory; blockCacheSize: number }): Runtime {
  const compile = (route: RouteSettings, source: string): CompiledRoute => {
    const identify = { key: route.key, ipv6Subnet: settings.ipv6Subnet, trustedProxies: settings.trustedProxies };
    if (route.unlimited) return { settings: route, policy: "", identify };
    try {
      const limiter = deps.createLimiter(route.rules, { runner: deps.runner, prefix: settings.keyPrefix });
      return { settings: route, limiter, policy: policyHeader(route.rules), identify };
    } catch (error) {
      throw new ConfigError(source, "", (error as Error).message);
    }
  };
  const routes = settings.routes.map((route, index) => ({ pattern: route.pattern, ...compile(route, `ROUTES[${index}]`) }));
  return {
    settings,
    match: compileRoutes(routes),
    defaultRoute: compile(settings.defaultRoute, "RATE_LIMIT"),
    blocks: createBlockCache(deps.blockCacheSize),
    warned: new Set(),
  };
}
