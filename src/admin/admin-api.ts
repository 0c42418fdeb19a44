/**
 * @module The admin API: when `ADMIN_TOKEN` is set, the Worker answers `/__ratewall/*` itself, on
 * every host it serves. These requests never reach the origin and are never counted against a
 * client. Every answer is JSON; errors are RFC 9457 problem details.
 *
 * - `GET /__ratewall/status?client=<ip>|key=<raw>[&route=<name>]`: each rule's remaining quota,
 *   read-only (one round trip; nothing charged, no TTL moved).
 * - `POST /__ratewall/reset?client=…|key=…[&route=<name>]`: deletes the client's counters for
 *   every rule of the route and drops it from this isolate's block cache. Other isolates re-ask
 *   Redis within `BLOCK_RECHECK_MS`.
 * - `GET /__ratewall/config`: the effective settings, both tokens redacted.
 * - `POST|DELETE /__ratewall/deny` and `/__ratewall/allow` (`client=…|key=…`, `ttl=<s>`): a
 *   client's dynamic list entry; `POST|DELETE /__ratewall/tier` (`tier=<name>`): its tier.
 *   The deciding script reads both in the same call as the decision (./endpoints.ts).
 *
 * The bearer token is checked first, in constant time. Failed attempts are limited per address
 * ({@link MAX_FAILED_ATTEMPTS} a minute, counted in Redis so every isolate sees them); a locked-out
 * address is refused even with the right token, or the lockout would not stop guessing. The
 * count ignores the dynamic lists: an allowed address is locked out like any other, and an
 * operator who denied their own address can still lift the deny.
 */
import type { Context, MiddlewareHandler } from "hono";
import { problemJson } from "../answers.ts";
import { blockFor, blockKey, secondsLeft } from "../block-cache.ts";
import { RedisRestError } from "../errors.ts";
import { retryAfterSeconds } from "../headers/rate-limit-headers.ts";
import { identify } from "../keys/identify.ts";
import { createLimiter } from "../limiter/create-limiter.ts";
import type { Decision, Limiter } from "../limiter/types.ts";
import { describeFailure, logThrottled } from "../middleware/rate-limit/log.ts";
import { decodePath, normalizeForMatch, resolveSegments, SEGMENT_PARAMETERS } from "../routing/normalize.ts";
import type { Runtime, Runtimes } from "../middleware/rate-limit/runtime.ts";
import { ENDPOINTS } from "./endpoints.ts";
import { bearerToken, sameToken } from "./token.ts";

/** Every admin path starts with this (after the same normalization routes get). */
export const ADMIN_PREFIX = "/__ratewall/";
/** The admin API's root, without the slash. */
const ADMIN_ROOT = ADMIN_PREFIX.slice(0, -1);

/** Failed attempts allowed per address and minute before it is locked out for the rest of it. */
export const MAX_FAILED_ATTEMPTS = 10;

/** The scope of the failed-attempt counters: no route can have it (route names are patterns or lowercase names). */
const GUARD_SCOPE = "__ratewall-admin";
/** Only a URL with one of these can name an admin path: anything else skips the normalization. */
const ADMIN_HINT = /%|_ratewall/i;

/**
 * The admin API, as a middleware in front of the rate limiter. Without `ADMIN_TOKEN` it passes
 * every request on and `/__ratewall/` is an ordinary path.
 *
 * @example
 * const runtimes = createRuntimes(options);
 * app.use(adminApi(runtimes)).use(rateLimitWith(runtimes));
 */
export function adminApi(runtimes: Runtimes): MiddlewareHandler {
  const guards = new WeakMap<Runtime, Limiter>();
  return async function adminApi(c, next) {
    const runtime = runtimes(c.env);
    const token = runtime.settings.adminToken;
    if (token === undefined || !ADMIN_HINT.test(c.req.url)) return next();
    const url = new URL(c.req.url);
    const { path: matched, otherPaths = [] } = normalizeForMatch(url);
    // `/__ratewall` is the API's too: forwarded, a mistyped call would hand the token to the origin.
    // So is a path an encoded slash makes climb out of it (`/__ratewall/..%2Fconfig`), which an
    // origin reading `..%2Fconfig` as one segment would read as under it, `;` parameters dropped
    // first or not (`/__ratewall;v=1/..%2Fconfig`: Tomcat and Spring drop them).
    const dropped = resolveSegments(decodePath(url.pathname.replace(SEGMENT_PARAMETERS, "")), true);
    const path = [matched, ...otherPaths, dropped].find((reading) => reading.startsWith(ADMIN_PREFIX) || reading === ADMIN_ROOT);
    if (path === undefined) return next();
    const answer = await answerAdmin(c, runtime, token, url, path);
    // Marked so that ratewall-admin tells the API's problem details from the limiter's 429 or an
    // origin's, which is what it meets when ADMIN_TOKEN is not set on the Worker.
    answer.headers.set("x-ratewall-admin", "1");
    return answer;
  };

  async function answerAdmin(c: Context, runtime: Runtime, token: string, url: URL, path: string): Promise<Response> {
    let guard = guards.get(runtime);
    if (!guard) {
      guard = createLimiter([{ name: "failed-attempts", algorithm: "fixed-window", limit: MAX_FAILED_ATTEMPTS, windowMs: 60_000 }], {
        runner: runtime.runner,
        prefix: runtime.settings.keyPrefix,
        lists: false,
      });
      guards.set(runtime, guard);
    }
    // By address whatever the default route counts: a header key would let a guesser send a new
    // value, and so be a new client, with every guess.
    const { client: by } = await identify(c.req.raw.headers, { ...runtime.defaultRoute.identify, key: { kind: "ip" } });
    const locked = await lockedOut(runtime, guard, by, sameToken(bearerToken(c.req.header("authorization")) ?? "", token));
    if (locked) return locked;

    // A trailing slash names the same endpoint, as it does a route (`/__ratewall/config/`).
    const endpointName = path.slice(ADMIN_PREFIX.length).replace(/\/$/, "");
    // Own names only: `__proto__` and `constructor` are no endpoints. (A method is one HTTP's
    // parsers know, GET to PATCH, so the lookup by method below needs no such care.)
    const methods = Object.hasOwn(ENDPOINTS, endpointName) ? ENDPOINTS[endpointName] : undefined;
    if (!methods)
      return problemJson(
        404,
        `Unknown admin path ${JSON.stringify(path)} (endpoints: ${Object.keys(ENDPOINTS)
          .map((name) => ADMIN_PREFIX + name)
          .join(", ")}).`,
      );
    // HEAD is GET without the content, wherever GET is answered (RFC 9110 §9.3.2).
    const head = c.req.method === "HEAD" && methods.GET !== undefined;
    const endpoint = head ? methods.GET : methods[c.req.method];
    const allowed = [...Object.keys(methods), ...(methods.GET ? ["HEAD"] : [])].join(", ");
    if (!endpoint) return problemJson(405, `${path} takes ${allowed}, not ${c.req.method}.`, [["Allow", allowed]]);
    try {
      const answer = await endpoint(runtime, url.searchParams);
      // A change is logged with its answer and the address it came from: the log then tells who
      // lifted a block or changed a tier, and what the entry was before (`was`).
      if (c.req.method !== "GET" && !head && answer.ok) {
        runtime.log({ level: "info", event: "admin-change", route: "admin", by, method: c.req.method, path, answer: await answer.clone().json() });
      }
      return head ? new Response(null, answer) : answer;
    } catch (error) {
      // Only a failed Redis call is Redis's fault: anything else is a bug, answered 500 rather
      // than sending the operator to look at Redis.
      if (!(error instanceof RedisRestError)) {
        runtime.log({ level: "error", event: "internal-error", route: "admin", cause: String((error as Error)?.message ?? error) });
        return problemJson(500, "Unexpected error; see the Worker's logs.");
      }
      logRedisFailure(runtime, error);
      // A list entry is written to several keys (a copy per multi-key route): some may have been
      // written, so a write's answer says to retry, which converges, rather than that nothing changed.
      // A refused token is the operator's to fix, not an outage to wait out, and wrote nothing.
      if (error.status === 401 || error.status === 403) return problemJson(503, "Redis refused the token (UPSTASH_REDIS_REST_TOKEN).");
      return problemJson(
        503,
        c.req.method === "GET" ? "Redis could not be reached." : "Redis could not be reached; retry (the change may have been applied in part).",
      );
    }
  }
}

/**
 * The answer that refuses this admin request (401, or 429 for a locked-out address), or
 * undefined when it may proceed. A wrong token is counted; a right one is checked against the
 * count without adding to it. When Redis cannot count, a wrong token is still refused and a
 * right one still admitted (operators need the API most when something is failing), except from
 * an address locked out already: its lockout holds until it ends, as the limiter's blocks do.
 */
async function lockedOut(runtime: Runtime, guard: Limiter, client: string, authorized: boolean): Promise<Response | undefined> {
  const now = runtime.clock();
  const key = blockKey(GUARD_SCOPE, client);
  const block = runtime.blocks.get(key, now);
  if (block && now < block.recheckAt) return tooManyFailures(secondsLeft(block, now));
  const request = { client, scope: GUARD_SCOPE, now };
  let decision: Decision | undefined;
  try {
    decision = authorized ? await guard.status(request) : await guard.limit(request);
  } catch (error) {
    // Counted or not, the failure is Redis's: logged as every admin call's is (README, "Logs").
    logRedisFailure(runtime, error);
    if (block) return tooManyFailures(secondsLeft(block, now));
    decision = undefined;
  }
  if (decision && !decision.allowed) {
    runtime.blocks.set(key, blockFor(decision, now));
    if (!block) runtime.log({ level: "warn", event: "admin-auth-failure", client, lockedOutFor: retryAfterSeconds(decision, now) });
    return tooManyFailures(retryAfterSeconds(decision, now));
  }
  if (authorized) return undefined;
  return problemJson(401, "Missing or wrong bearer token (Authorization: Bearer <ADMIN_TOKEN>).", [["WWW-Authenticate", 'Bearer realm="ratewall"']]);
}

function tooManyFailures(seconds: number): Response {
  return problemJson(429, `Too many failed attempts from this address; retry after ${seconds} s.`, [["Retry-After", String(seconds)]]);
}

/** A `redis-failure` line for a failed admin call, the guard's included, as often as {@link logThrottled} allows (README, "Logs"). */
function logRedisFailure(runtime: Runtime, error: unknown): void {
  const failure = describeFailure(error);
  // As a decision's: at most one line per kind every 10 s, or anyone could write one per request
  // to /__ratewall/ while Redis fails (the guard's call fails before the token is known to be wrong).
  logThrottled(runtime.log, runtime.adminLines, "", runtime.clock(), { level: "error", event: "redis-failure", route: "admin", ...failure });
}
