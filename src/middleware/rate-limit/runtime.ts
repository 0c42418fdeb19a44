/**
 * @module Everything the middleware builds once per settings, so that no request pays for it
 * again: the route matcher; per route one limiter, one
 * `RateLimit-Policy` string and the client-identification options; the block cache, the Redis
 * runner, the logger and the event sink. {@link createRuntimes} keeps one runtime per settings, so
 * the middleware and the admin API (src/admin) share one block cache.
 */
import { createBlockCache, type BlockCache } from "../../block-cache.ts";
import type { RouteSettings, Settings } from "../../config/types.ts";
import { ConfigError, expectMethods, quote } from "../../errors.ts";
import type { DecisionEvent } from "../../events/decision-event.ts";
import { createEventSink, type EventSink } from "../../events/event-sink.ts";
import { policyHeader } from "../../headers/rate-limit-headers.ts";
import type { IdentifyOptions } from "../../keys/identify.ts";
import { type PerRuleIdentify, ruleSources } from "../../keys/rule-sources.ts";
// Not the ../../limiter barrel: it also exports the in-memory limiter, whose models the Worker
// does not need (docs/architecture.md, "The in-memory model").
import { createLimiter, RUNNER_METHODS } from "../../limiter/create-limiter.ts";
import { type ClientEntries, createClientEntries } from "../../limiter/entries/index.ts";
import type { Policy } from "../../limiter/plan.ts";
import type { Limiter, Rule, ScriptRunner } from "../../limiter/types.ts";
import { createRedisRunner } from "../../redis/client.ts";
import { compileLevel, type ListLevel } from "../../lists/verdict.ts";
import { compileRoutes } from "../../routing/match.ts";
import { type CachedRouteMatcher, memoizeRoutes } from "../../routing/route-cache.ts";
import { refuseMisspelt, settingsFor, type Vars } from "../../settings.ts";
import { consoleLogger, type FailureLines, type LogEntry, type Logger, redact, unfailing } from "./log.ts";

/** The name events, logs and the admin API use for the route of requests no route matches. */
export const DEFAULT_ROUTE_NAME = "default";

/** A route ready for requests. */
export interface CompiledRoute {
  settings: RouteSettings;
  /** `name`, else the pattern; {@link DEFAULT_ROUTE_NAME} for the default route. */
  name: string;
  /** Absent for an unlimited route. */
  limiter?: Limiter;
  /** The route's `RateLimit-Policy` value for a decision's tier (the route's only one without tiers). */
  policyFor(tier: string | undefined): string;
  /** The rules that decided for a decision's tier (the route's own without tiers), in the decision's order. */
  rulesFor(tier: string | undefined): readonly Rule[];
  /** How the route's clients are identified: its key source with the isolate's IP settings. */
  identify: IdentifyOptions;
  /** On a multi-key route (rules counting different clients): one identification per distinct source. */
  perRule?: PerRuleIdentify;
  /** The route's lists, then `ALLOW`/`DENY`; absent when every one is empty (no check at all). */
  lists?: readonly ListLevel[];
}

/** The per-settings state of the middleware. */
export interface Runtime {
  settings: Settings;
  /** The route for a request's URL text and method (parsed once per distinct URL, not per request). */
  match: CachedRouteMatcher<CompiledRoute>;
  defaultRoute: CompiledRoute;
  /** Every route by {@link CompiledRoute.name}, the default one included (the admin API's `route=`). */
  routesByName: ReadonlyMap<string, CompiledRoute>;
  blocks: BlockCache;
  /** What was already logged once in this isolate (fallback kinds, a failing `clientAddress`): each is worth one line, not one per request. */
  warned: Set<string>;
  /** The `redis-failure` lines written, per route and kind (log.ts, {@link failureLine}). */
  failureLines: FailureLines;
  /** The `origin-failure` lines written, per configured origin (`""`: the request's own) and kind. */
  originLines: FailureLines;
  /** The admin API's `redis-failure` lines written, per kind (apart: decisions look for their recovery in theirs). */
  adminLines: FailureLines;
  /** The given logger, with the Upstash token redacted from every line. */
  log: Logger;
  send: EventSink;
  runner: ScriptRunner;
  /** Clients' list entries and tiers (the admin API writes them; the limiter scripts read them). */
  entries: ClientEntries;
  /** The time in ms since the epoch. */
  clock: () => number;
}

/** How limiters are made: `createLimiter` from src/limiter, or another implementation (tests). */
export type LimiterFactory = (policy: Policy, deps: { runner: ScriptRunner; prefix: string }) => Limiter;

/** What runtimes are built from; every field but `vars` defaults to the real thing. */
export interface RuntimeOptions {
  /** The settings as env vars; omitted, each request's `c.env` (parsed once per env object). */
  vars?: Vars;
  /** The `fetch` for Redis calls only. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Replaces the Upstash REST transport. @default createRedisRunner(url, token, timeout, fetch) */
  runner?: ScriptRunner;
  /** @default createLimiter from src/limiter */
  createLimiter?: LimiterFactory;
  /** The time in ms since the epoch, read once per request; a fraction of a ms is dropped. @default Date.now */
  clock?: () => number;
  /** @default one JSON line per event on the console, with the token redacted */
  log?: Logger;
  /**
   * Receives every decision event (besides the `RATEWALL_ANALYTICS` dataset, when bound). Not
   * awaited: an async one's promise goes to `waitUntil` where there is one, and a callback that
   * throws or rejects is logged once (`analytics-failure`) and never fails the request.
   */
  onEvent?: (event: DecisionEvent) => void;
  /** Clients remembered as blocked, per isolate. @default 10000 */
  blockCacheSize?: number;
}

/** The runtime for a request's env: the given vars' one, or one per env object. */
export type Runtimes = (env: unknown) => Runtime;

/**
 * Creates the runtime cache. Given vars are validated now, so a bad config fails at startup
 * rather than on a request; otherwise each env's settings are read on its first request.
 *
 * @example
 * const runtimes = createRuntimes({ vars: env });
 * runtimes(c.env).match(c.req.url, c.req.method);
 */
export function createRuntimes(options: RuntimeOptions): Runtimes {
  const { blockCacheSize } = options;
  // Checked now: a wrong type would otherwise fail every request (clock, log), or every Redis
  // call, which FAILURE_MODE=open turns into no limit at all (fetch, runner, createLimiter).
  for (const name of FUNCTION_OPTIONS) {
    const value = options[name];
    if (value !== undefined && typeof value !== "function") throw new TypeError(`${name}: expected a function, got ${quote(value)}`);
  }
  const { runner, vars } = options;
  if (runner !== undefined) expectMethods("runner", runner, RUNNER_METHODS);
  // `null` would otherwise read c.env instead, a string fail with a WeakMap's message.
  if (vars !== undefined && (vars === null || typeof vars !== "object" || Array.isArray(vars))) {
    throw new TypeError(`vars: expected an object of variables, got ${quote(vars)}`);
  }
  // Checked here, not where the cache is built: without `vars` that is the first request.
  if (blockCacheSize !== undefined && !(Number.isInteger(blockCacheSize) && blockCacheSize >= 1)) {
    throw new RangeError(`blockCacheSize: expected an integer >= 1, got ${quote(blockCacheSize)}`);
  }
  const bySettings = new WeakMap<Settings, Runtime>();
  const runtimeFor = (settings: Settings) => {
    let runtime = bySettings.get(settings);
    if (!runtime) {
      runtime = buildRuntime(settings, options);
      bySettings.set(settings, runtime);
    }
    return runtime;
  };
  if (options.vars) refuseMisspelt(options.vars, "vars");
  const fixed = options.vars ? runtimeFor(settingsFor(options.vars)) : undefined;
  return (env) => fixed ?? runtimeFor(settingsFor((env as object | undefined) ?? NO_ENV));
}

/** The options that hold a function. */
const FUNCTION_OPTIONS = ["fetch", "createLimiter", "clock", "log", "onEvent"] as const satisfies ReadonlyArray<keyof RuntimeOptions>;

/** Every option {@link createRuntimes} reads. */
export const RUNTIME_OPTIONS: ReadonlyArray<keyof RuntimeOptions> = ["vars", "runner", "blockCacheSize", ...FUNCTION_OPTIONS];

/** Stands for a missing `c.env` (Hono outside Workers): settings then fail with a clear message. */
const NO_ENV = Object.freeze({});

/**
 * Builds the runtime. A rule the limiter rejects becomes a {@link ConfigError} that names where
 * the rule was written.
 *
 * @example
 * const runtime = buildRuntime(readSettings(env), {});
 */
export function buildRuntime(settings: Settings, options: RuntimeOptions): Runtime {
  const runner = options.runner ?? createRedisRunner({ ...settings.redis, fetch: options.fetch });
  const makeLimiter = options.createLimiter ?? createLimiter;
  // Another implementation's limiter is checked, and its errors are its own (below).
  const custom = makeLimiter !== createLimiter;
  const global = compileLevel(settings);
  const compile = (route: RouteSettings, name: string, source: string): CompiledRoute => {
    const { sources, ofRule } = ruleSources(route);
    const options = sources.map((key) => ({ key, ipv6Subnet: settings.ipv6Subnet, trustedProxies: settings.trustedProxies }));
    const identify = options[0]!;
    const perRule = options.length > 1 ? { sources: options, ofRule } : undefined;
    const levels = [compileLevel(route), global];
    const lists = levels.every((level) => level.allow.empty && level.deny.empty) ? undefined : levels;
    const rulesFor = (tier: string | undefined) => (tier !== undefined && route.tiers?.tiers[tier]) || route.rules;
    if (route.unlimited) return { settings: route, name, policyFor: () => "", rulesFor, identify, lists };
    try {
      const limiter = makeLimiter(route.tiers ?? route.rules, { runner, prefix: settings.keyPrefix });
      // A wrong one would fail every decision, as a wrong runner would. An async one's promise is
      // refused too, and its rejection left handled: Node ends the process on an unhandled one.
      if (custom) {
        if (limiter instanceof Promise) limiter.catch(() => {});
        expectMethods("createLimiter()", limiter, ["limit", "status", "reset"]);
      }
      const policies = new Map(Object.entries(route.tiers?.tiers ?? { "": route.rules }).map(([tier, rules]) => [tier, policyHeader(rules, route.cost)]));
      const fallback = policyHeader(route.rules, route.cost);
      return {
        settings: route,
        name,
        limiter,
        policyFor: (tier) => policies.get(tier ?? "") ?? fallback,
        rulesFor,
        identify,
        ...(perRule ? { perRule } : {}),
        lists,
      };
    } catch (error) {
      // A rule ratewall's limiter refuses (RangeError) was written in `source`; anything from
      // another `createLimiter`, or from the check above, is its own error.
      if (custom || !(error instanceof RangeError)) throw error;
      throw new ConfigError(source, "", error.message);
    }
  };
  const routes = settings.routes.map((route, index) => ({
    pattern: route.pattern,
    methods: route.methods,
    ...compile(route, route.scope, `ROUTES[${index}]`),
  }));
  const defaultRoute = compile(settings.defaultRoute, DEFAULT_ROUTE_NAME, "RATE_LIMIT");
  const log = unfailing(redact(redact(options.log ?? consoleLogger, settings.redis.token), settings.adminToken ?? ""));
  // Keys and scripts count whole ms; `performance.timeOrigin + performance.now()` has fractions.
  const userClock = options.clock;
  return {
    settings,
    match: memoizeRoutes(compileRoutes(routes)),
    defaultRoute,
    routesByName: new Map([[DEFAULT_ROUTE_NAME, defaultRoute], ...routes.map((route) => [route.name, route] as const)]),
    blocks: createBlockCache(options.blockCacheSize ?? 10_000),
    warned: new Set(),
    failureLines: new Map(),
    originLines: new Map(),
    adminLines: new Map(),
    log,
    send: createEventSink({ client: settings.analytics.client, secret: settings.redis.token, onEvent: options.onEvent, log }),
    runner,
    // A multi-key route's script reads the route's copy of each list entry (same slot as its counters).
    entries: createClientEntries(
      runner,
      settings.keyPrefix,
      routes.filter((route) => route.perRule).map((route) => route.settings.scope),
    ),
    clock: userClock ? () => readClock(userClock) : Date.now,
  };
}

/**
 * The user's clock in whole ms. One that gives no time (NaN, `undefined`) is an error naming it:
 * the limiter would refuse to build keys with it, which `FAILURE_MODE=open` reads as a Redis
 * failure, and every request would pass.
 */
function readClock(clock: () => number): number {
  const value: unknown = clock();
  if (typeof value !== "number" || !Number.isFinite(value)) throw new TypeError(`clock: returned ${quote(value)}, expected ms since the epoch`);
  return Math.floor(value);
}

/**
 * Logs `entry` the first time `kind` happens in the isolate: worth one line, not one per request.
 *
 * @example
 * logOnce(runtime, "ambiguous-path", { level: "warn", event: "ambiguous-path", path, reason });
 */
export function logOnce(runtime: Runtime, kind: string, entry: LogEntry): void {
  if (runtime.warned.has(kind)) return;
  runtime.warned.add(kind);
  runtime.log(entry);
}
