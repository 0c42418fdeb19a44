/**
 * @module `rateLimit(options)`: the Hono middleware. Per request: match the route → identify the
 * client → ask the block cache → one limiter call → one decision event → headers → `next()`, or
 * a 429 thrown as `HTTPException` carrying its finished response (hono's basic-auth style), or
 * returned as it is where the app asks for that (the Worker's, src/app.ts).
 * `MODE=shadow` decides and logs but never refuses; `FAILURE_MODE` says what a Redis failure does.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { HTTPException } from "hono/http-exception";
import { type OwnStatus, problemResponse } from "../../answers.ts";
import { quote } from "../../errors.ts";
import { type Block, blockFor, blockKey, secondsLeft } from "../../block-cache.ts";
import type { RouteSettings } from "../../config/types.ts";
import { type CfFields, decisionEvent, type Outcome } from "../../events/decision-event.ts";
import { addHeaders } from "../../headers/add-headers.ts";
import { type HeaderList, rateLimitHeaders, retryAfterSeconds } from "../../headers/rate-limit-headers.ts";
import { clientAddress, withoutPort } from "../../keys/identify.ts";
import { clientIp } from "../../keys/ip.ts";
import { identifyClients } from "../../keys/rule-sources.ts";
import { listVerdict } from "../../lists/verdict.ts";
import type { Decision } from "../../limiter/types.ts";
import { AmbiguousPathError } from "../../routing/match.ts";
import { describeFailure, logThrottled, recoveryLine } from "./log.ts";
import { createRuntimes, logOnce, RUNTIME_OPTIONS, type CompiledRoute, type Runtime, type RuntimeOptions, type Runtimes } from "./runtime.ts";

/** What the middleware leaves in `c.var.rateLimit` for later handlers (the proxy reads `route`). */
export interface RateLimitState {
  route: RouteSettings;
  /**
   * Absent on unlimited routes. When Redis failed, a decision without rules whose `reason` is
   * `redis-timeout` or `redis-error` (`allowed` when `FAILURE_MODE=open`).
   */
  decision?: Decision;
}

declare module "hono" {
  /**
   * `c.var.rateLimit` is typed in every Hono app that imports the middleware, without declaring
   * it in the app's Variables (as hono's own middlewares type `c.var`).
   */
  interface ContextVariableMap {
    rateLimit?: RateLimitState;
  }
}

/** Where a client's address comes from: the app's own answer, for runtimes that are not Cloudflare. */
export type ClientAddress = (c: Context) => string | undefined;

/** Options, validated when `rateLimit()` runs. */
export interface RateLimitOptions extends RuntimeOptions {
  /**
   * The client's address, for runtimes where Cloudflare does not set `CF-Connecting-IP`: there a
   * client writes that header itself, and would be a new client on every request. Given, it is the
   * address the limiter and the lists read; `CF-Connecting-IP`, `X-Forwarded-For` and
   * `TRUSTED_PROXIES` are not read. `undefined` counts the request in the shared `unknown` bucket.
   * @example (c) => getConnInfo(c).remote.address // @hono/node-server/conninfo, hono/bun, hono/deno
   */
  clientAddress?: ClientAddress;
}

/** Every option `rateLimit()` takes. */
const OPTIONS: ReadonlySet<string> = new Set<string>([...RUNTIME_OPTIONS, "clientAddress"]);

type RateLimitMiddleware = MiddlewareHandler<{ Variables: { rateLimit?: RateLimitState } }>;

/**
 * Creates the middleware.
 *
 * @example
 * const app = new Hono();
 * app.use("/api/*", rateLimit({ vars: { UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token, RATE_LIMIT: "100/60s" } }));
 */
export function rateLimit(options: RateLimitOptions = {}): RateLimitMiddleware {
  if (typeof options !== "object" || options === null) throw new TypeError(`rateLimit: expected an options object, got ${quote(options)}`);
  // A misspelled option (`clientAdress`) would be ignored, and its default used.
  const unknown = Object.keys(options).find((name) => !OPTIONS.has(name));
  if (unknown !== undefined) throw new TypeError(`rateLimit: unknown option ${JSON.stringify(unknown)} (expected one of ${[...OPTIONS].join(", ")})`);
  const { clientAddress } = options;
  if (clientAddress !== undefined && typeof clientAddress !== "function") {
    throw new TypeError(`clientAddress: expected a function (c) => string | undefined, got ${quote(clientAddress)}`);
  }
  return rateLimitWith(createRuntimes(options), { clientAddress });
}

/**
 * The middleware over runtimes the caller also uses (the Worker shares them with its admin API,
 * so a reset clears the same block cache the middleware reads).
 *
 * @example
 * const runtimes = createRuntimes(options);
 * app.use(adminApi(runtimes)).use(rateLimitWith(runtimes));
 */
export function rateLimitWith(
  runtimes: Runtimes,
  { throwRefusals = true, clientAddress: addressOf }: { throwRefusals?: boolean; clientAddress?: ClientAddress | undefined } = {},
): RateLimitMiddleware {
  // An app that maps HTTPException to its response anyway (the Worker's) may take the answer as
  // returned: constructing the exception costs more than the rest of a refusal from memory.
  const refuse = (c: Context, status: OwnStatus & ContentfulStatusCode, detail: string, headers?: HeaderList): Response => {
    const res = problemResponse(status, detail, c.req.header("accept"), headers);
    if (throwRefusals) throw new HTTPException(status, { res });
    return res;
  };
  return async function rateLimit(c, next) {
    const runtime = runtimes(c.env);
    const { settings, log } = runtime;
    let route: CompiledRoute;
    try {
      route = runtime.match(c.req.url, c.req.method) ?? runtime.defaultRoute;
    } catch (error) {
      if (!(error instanceof AmbiguousPathError)) throw error;
      // Refused in every mode and for every client, as a malformed request is: which route, and so
      // which lists, apply is what cannot be told.
      logOnce(runtime, "ambiguous-path", { level: "warn", event: "ambiguous-path", path: error.pathname, reason: error.message });
      return refuse(c, 400, error.message);
    }
    c.set("rateLimit", { route: route.settings });
    // Asked at most once, and only when a list or a key needs the address.
    const ownAddress = addressOf && once(() => askApp(addressOf, c, runtime, route.name));
    if (route.lists) {
      const raw = c.req.raw;
      const ip = ownAddress ? ownAddress() : clientAddress(raw.headers, settings.trustedProxies);
      const verdict = listVerdict(route.lists, {
        ip,
        get country() {
          return cfOf(raw).country;
        },
        get asn() {
          return cfOf(raw).asn;
        },
      });
      if (verdict !== undefined) {
        // The event names the client as an address-keyed route counts it (an IPv6 /64).
        const client = ip === undefined ? undefined : clientIp(ip, settings.ipv6Subnet);
        emit(runtime, c, route, verdict === "deny" ? "denied" : "allow-listed", undefined, 0, client);
        if (verdict === "allow") return next();
        return refuse(c, 403, "This client is not allowed here.");
      }
    }
    if (!route.limiter) {
      emit(runtime, c, route, "unlimited");
      return next();
    }
    const now = runtime.clock();
    const who = await identifyClients(c.req.raw.headers, route.identify, route.perRule, {
      url: c.req.url,
      get cf() {
        return cfOf(c.req.raw);
      },
      ...(ownAddress && { address: ownAddress }),
    });
    for (const fallback of who.fallbacks) {
      logOnce(runtime, fallback.warning!, { level: "warn", event: "client-fallback", reason: fallback.warning, client: fallback.client, route: route.name });
    }
    const enforce = route.settings.mode === "enforce";
    // A route in shadow refuses no one for the limiter's sake, so a Redis failure there lets the
    // request through whatever FAILURE_MODE says: closing would turn a trial into an outage.
    const failureMode = enforce ? settings.failureMode : "open";
    // One block per (route, client): on a multi-key route each distinct client of the request may
    // be blocked on its own (an API key spent on one address is spent on every address). There a
    // block holds only if its refusing rule counts the same client in this request: an address
    // that spent the key's rule without a key (the rule fell back to it) may go on with a key.
    const blocksNow = () => {
      const found = new Map<string, Block>();
      for (const client of who.clients ? new Set(who.clients) : [who.client]) {
        const block = runtime.blocks.get(blockKey(route.settings.scope, client), now);
        if (block && (!who.clients || who.clients[route.settings.rules.findIndex((rule) => rule.name === block.decision.rule)] === client)) {
          found.set(client, block);
        }
      }
      return found;
    };
    const blocked = blocksNow();
    // Answered from memory until the latest of its blocks ends, while that one is trusted: past
    // its re-check, Redis says whether it still holds. In shadow only an operator's deny holds.
    let latest: Block | undefined;
    for (const candidate of blocked.values()) {
      if (!enforce && candidate.decision.reason !== "deny-list") continue;
      if (!latest || candidate.until > latest.until) latest = candidate;
    }
    const block = latest && now < latest.recheckAt ? latest : undefined;
    const request = { client: who.client, ...(who.clients ? { clients: who.clients } : {}), scope: route.settings.scope, cost: route.settings.cost, now };
    // A route that counts only some answers (`count`) checks first, read-only, and charges once
    // the origin has answered; every other route decides and charges in one call.
    const countsAll = route.settings.count === "all";
    let decision: Decision;
    let outcome: Outcome;
    let redisMs = 0;
    if (block) {
      decision = fromBlock(block, now);
      outcome = decision.reason === "deny-list" ? "denied" : "block-cache";
    } else {
      const started = performance.now();
      try {
        decision = await (countsAll ? route.limiter.limit(request) : route.limiter.status(request));
        if (runtime.failureLines.size > 0) logRecovery();
      } catch (error) {
        if (!latest) return redisFailed(error, performance.now() - started);
        logFailure(error);
        // Redis failed, but this client is known to be refused until its block ends: that holds
        // whatever FAILURE_MODE says, which decides for clients nothing is known about.
        decision = fromBlock(latest, now);
      }
      redisMs = performance.now() - started;
      if (decision.reason === "block-cache") outcome = "block-cache";
      else {
        outcome = outcomeOf(decision, enforce);
        remember(decision, blocked);
      }
    }
    c.set("rateLimit", { route: route.settings, decision });
    emit(runtime, c, route, outcome, decision, redisMs, decision.client ?? who.client);
    if (decision.reason === "allow-list") return next();
    // An operator's deny refuses in shadow too, as a static DENY does: shadow tries out limits,
    // not lists. Otherwise in shadow a refused request still passes: RateLimit says so, but
    // Retry-After (RFC 9110 §10.2.3) belongs to answers that ask the client to wait.
    const denied = decision.reason === "deny-list";
    const all = denied ? retryAfterOnly(decision, now) : rateLimitHeaders(decision, route.policyFor(decision.tier), now, settings.headers, route.settings.cost);
    const headers = enforce || denied ? all : all.filter(([name]) => name !== "Retry-After");
    if (!decision.allowed && (enforce || denied)) {
      if (denied) return refuse(c, 403, "This client is not allowed here.", headers);
      const detail = `Rate limit "${decision.rule}" exceeded; retry after ${retryAfterSeconds(decision, now)} s.`;
      return refuse(c, 429, detail, headers);
    }
    await next();
    addHeaders(c, headers);
    if (!countsAll && (route.settings.count as readonly number[]).includes(c.res.status)) {
      // Charged after the answer, so the client waits for nothing; a charge refused because the
      // budget ran out meanwhile starts the block as a decision would.
      defer(
        c,
        route.limiter.limit(request).then(
          (charged) => charged.allowed || remember(charged, blocksNow()),
          (error) => logFailure(error),
        ),
      );
    }

    /**
     * Keeps the isolate's blocks in line with Redis's answer: each refused client starts (or
     * continues) a block, logged when new, at most once per BLOCK_RECHECK_MS (the block cache's
     * `lineDue`); a client Redis no longer refuses loses its block
     * (reset by an operator, or Redis forgot it). A dynamic deny on a multi-key route names no
     * client, so it is not remembered: the next request asks Redis again.
     *
     * `before` holds the blocks this request saw when it asked. Other requests may have answered
     * meanwhile (many in flight at once when a flood begins), so an answer removes only a block it
     * saw, never a newer one, and a refusal is logged only when no block is there now: else every
     * request in flight as the budget ran out would log its own.
     */
    function remember(answer: Decision, before: ReadonlyMap<string, Block>) {
      const refused = answer.allowed ? [] : refusedClients(answer, who.client, who.clients, now);
      for (const [client, seen] of before) {
        const key = blockKey(route.settings.scope, client);
        if (!refused.some((entry) => entry.client === client) && runtime.blocks.get(key, now) === seen) runtime.blocks.delete(key);
      }
      for (const { client, refusal } of refused) {
        const key = blockKey(route.settings.scope, client);
        const known = runtime.blocks.get(key, now) !== undefined;
        runtime.blocks.set(key, blockFor(refusal, now));
        if (known || !runtime.blocks.lineDue(key, now)) continue;
        const event = refusal.reason === "deny-list" ? "denied" : enforce ? "refusal" : "shadow-refusal";
        log({ level: "info", event, route: route.name, client, rule: refusal.rule, retryAfter: refusal.retryAfter });
      }
    }

    /** A `redis-failure` line, scrubbed of the token, as often as {@link logThrottled} allows (log.ts). */
    function logFailure(error: unknown) {
      const failure = describeFailure(error);
      logThrottled(log, runtime.failureLines, route.name, now, { level: "error", event: "redis-failure", failureMode, route: route.name, ...failure });
      return failure;
    }

    /** The failures an outage's lines did not count, once it is over (log.ts, {@link recoveryLine}). */
    function logRecovery() {
      const line = recoveryLine(runtime.failureLines, route.name, now);
      if (line) log({ level: "warn", event: "redis-recovered", route: route.name, ...line });
    }

    async function redisFailed(error: unknown, ms: number) {
      const failure = logFailure(error);
      const open = failureMode === "open";
      const failed: Decision = { allowed: open, rule: "", rules: [], reason: failure.kind === "timeout" ? "redis-timeout" : "redis-error" };
      c.set("rateLimit", { route: route.settings, decision: failed });
      emit(runtime, c, route, open ? "failed-open" : "failed-closed", undefined, ms, who.client);
      if (!open) return refuse(c, 503, "The rate limiter is unavailable; try again shortly.");
      return next();
    }
  };
}

/**
 * The app's answer for the client's address, without the port some give with it (`ip:port`,
 * `[ipv6]:port`), as an X-Forwarded-For hop is read. Anything but a non-empty string is none. A
 * `clientAddress` that throws (a `getConnInfo` under `app.request()`, which has no socket) makes
 * the client `unknown` rather than the answer a 500, and is logged once per isolate.
 */
function askApp(addressOf: ClientAddress, c: Context, runtime: Runtime, route: string): string | undefined {
  let address: unknown;
  try {
    address = addressOf(c);
  } catch (error) {
    logOnce(runtime, "client-address-failed", { level: "error", event: "client-address-failed", route, error: String(error) });
    return undefined;
  }
  return typeof address === "string" && address !== "" ? withoutPort(address.trim()) : undefined;
}

/** `read`, called on first use only. */
function once<T>(read: () => T): () => T {
  let value: { read: T } | undefined;
  return () => {
    value ??= { read: read() };
    return value.read;
  };
}

/** The `cf` fields of requests already read, by request. */
const cfRead = new WeakMap<Request, { country?: string; asn?: number; colo?: string }>();

/**
 * The request's `cf.country`, `cf.asn` and `cf.colo`, read on first use and only once, for the
 * lists, the keys and the decision event alike: workerd builds `request.cf` from its serialized
 * form on first access, tens of µs per request (docs/performance.md, entry 8), and a route whose
 * lists and keys name no country or ASN, in a Worker without an event sink, never needs it.
 */
function cfOf(request: Request): { country?: string; asn?: number; colo?: string } {
  let fields = cfRead.get(request);
  if (fields === undefined) {
    const cf = (request as { cf?: CfFields }).cf;
    fields = {
      country: typeof cf?.country === "string" ? cf.country : undefined,
      asn: typeof cf?.asn === "number" ? cf.asn : undefined,
      colo: typeof cf?.colo === "string" ? cf.colo : undefined,
    };
    cfRead.set(request, fields);
  }
  return fields;
}

/**
 * A refusal from memory, its Retry-After counted down to the block's end. A denied client stays
 * denied. A rule other than the deciding one whose window has reset since is left out: what it
 * has left now is known only to Redis, and `r=0;t=0` would contradict the Retry-After.
 */
function fromBlock(block: Block, now: number): Decision {
  const retryAfter = secondsLeft(block, now);
  const { decision } = block;
  if (decision.reason === "deny-list") return { ...decision, ...(decision.retryAt === undefined ? {} : { retryAfter }) };
  const rules = decision.rules.filter((outcome) => outcome.rule === decision.rule || outcome.resetAt > now);
  return { ...decision, rules, retryAfter, reason: "block-cache" };
}

/**
 * Whom a refusal blocks: the request's client on a single-key route; on a multi-key route each
 * client whose own rules refused, with the decision narrowed to its rules and its retry time (an
 * address refused by its per-address rule is not blocked with another API key, nor the reverse;
 * and answers from the block show no other client's quota).
 */
function refusedClients(refusal: Decision, client: string, clients: readonly string[] | undefined, now: number): Array<{ client: string; refusal: Decision }> {
  if (!clients) return [{ client, refusal }];
  return (refusal.refusedClients ?? []).map((refused) => ({
    client: refused.client,
    refusal: {
      ...refusal,
      rule: refused.rule,
      rules: refusal.rules.filter((_, i) => clients[i] === refused.client),
      client: refused.client,
      retryAt: refused.retryAt,
      retryAfter: Math.max(1, Math.ceil((refused.retryAt - now) / 1000)),
      refusedClients: [refused],
    },
  }));
}

/** What the limiter's answer was, for the decision event. */
function outcomeOf(decision: Decision, enforce: boolean): Outcome {
  if (decision.reason === "deny-list") return "denied";
  if (decision.reason === "allow-list") return "allow-listed";
  return decision.allowed ? "allowed" : enforce ? "refused" : "shadow-refused";
}

/** A dynamic deny has no quota to announce: only when its entry expires, if it does. */
function retryAfterOnly(decision: Decision, now: number): HeaderList {
  return decision.retryAt === undefined ? [] : [["Retry-After", String(retryAfterSeconds(decision, now))]];
}

/** Sends the request's decision event to the runtime's sink (never awaited; never throws). */
function emit(runtime: Runtime, c: Context, route: CompiledRoute, outcome: Outcome, decision?: Decision, redisMs = 0, client?: string): void {
  // A tiered client was decided by its tier's rules, which may name and count differently.
  const build = () => decisionEvent(outcome, route.name, route.rulesFor(decision?.tier), decision, redisMs, cfOf(c.req.raw), route.settings.cost);
  runtime.send(build, client, (c.env as { RATEWALL_ANALYTICS?: unknown } | undefined)?.RATEWALL_ANALYTICS, (work) => defer(c, work));
}

/** Keeps `work` alive after the response where the runtime offers `waitUntil`; elsewhere it simply runs. */
function defer(c: Context, work: Promise<unknown>): void {
  try {
    c.executionCtx.waitUntil(work);
  } catch {
    // Hono outside Workers has no ExecutionContext; the promise completes on its own.
  }
}
