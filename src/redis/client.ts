/**
 * @module The Upstash REST transport behind the limiter's {@link ScriptRunner}: EVALSHA and EVAL
 * in `@upstash/redis`'s exact wire form (`["evalsha", sha1, numkeys, ...keys, ...args]` to `POST /`,
 * docs/shim.md §9.1), one `fetch` per command.
 *
 * Why not `@upstash/redis` itself (read in node_modules/@upstash/redis, 1.39.0, `pkg/http.ts`;
 * its command classes are type-only exports, so only its `Redis` + `HttpClient` could be used):
 * - It replays a rejected `fetch` (reset, refused): 6 tries by default and still 2 with
 *   `retry: false` (docs/shim.md §11.5); only `retry: { retries: 0 }` makes it one. A rejected
 *   fetch is ambiguous (the script may have run), and a replay can count one request twice
 *   (docs/architecture.md, "Failure modes"), so we make exactly one try and never retry.
 * - It calls the global `fetch`, so the Redis calls cannot get their own `fetch` (each outbound
 *   dependency gets its own: `redisFetch` and `originFetch` in src/app.ts).
 * - Its errors drop the HTTP status: a 5xx could not be told from a Redis error reply.
 *
 * And the client's defaults, each off here because each costs on the hot path
 * (docs/architecture.md, "The Redis transport"):
 * - `Upstash-Encoding: base64`: the reply is a short array of integers; base64 would only add
 *   bytes and a decode of every string.
 * - auto-pipelining: a decision is one command; batching to `/pipeline` adds a microtask of
 *   latency and a larger body for nothing.
 * - read-your-writes: scripts run on the primary; the `upstash-sync-token` header is pure bytes.
 * - telemetry headers: about 150 bytes per request.
 * - automatic deserialization: a `JSON.parse` attempt per reply element; we parse the integers.
 */
import { firstRefused, inHeaderValue, trimHeaderValue } from "../headers/header-value.ts";
import { RedisRestError, quote } from "../errors.ts";
import type { ScriptRunner } from "../limiter/types.ts";

/** Where Redis is and how long a call may take. */
export interface RedisRunnerOptions {
  /** `UPSTASH_REDIS_REST_URL`, e.g. `https://eu1-example.upstash.io` or the shim's URL. */
  url: string;
  /** `UPSTASH_REDIS_REST_TOKEN`. Sent as a bearer token, never put in an error message. */
  token: string;
  /**
   * Bound on one call, request and response body together (`REDIS_TIMEOUT_MS`); an EVAL given
   * `startedAt` shares it with the EVALSHA before it.
   */
  timeoutMs: number;
  /** The `fetch` for Redis calls only. @default the global fetch */
  fetch?: typeof fetch;
}

/**
 * A {@link ScriptRunner} over the Upstash REST API. Each call is one POST, made once: on failure it
 * throws {@link RedisRestError} with kind `timeout` (no answer within `timeoutMs`), `network`
 * (fetch rejected), `http` (non-2xx without a Redis error, e.g. 401 or 5xx) or `reply` (Redis
 * answered with an error, e.g. NOSCRIPT).
 *
 * @example
 * const runner = createRedisRunner({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN, timeoutMs: 50 });
 * const limiter = createLimiter(rules, { runner, prefix: "rate" });
 */
export function createRedisRunner(options: RedisRunnerOptions): ScriptRunner {
  const request = createRequest(options);
  return {
    evalsha: (sha1, keys, args) => request(["evalsha", sha1, keys.length, ...keys, ...args]),
    eval: (script, keys, args, startedAt) => request(["eval", script, keys.length, ...keys, ...args], startedAt),
  };
}

function createRequest({ url, token: given, timeoutMs, fetch: fetchImpl }: RedisRunnerOptions) {
  // Checked now: a bad bound would fail every call, which FAILURE_MODE=open turns into no limit.
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) throw new RangeError(`timeoutMs: expected an integer >= 1 (ms), got ${quote(timeoutMs)}`);
  // Not quoted: a token passed as the URL would reach the logs. Read as the URL parser reads it, as
  // the settings read UPSTASH_REDIS_REST_URL: what they accept, every call can use. A user or
  // password would make fetch refuse every call, quoting the URL, password included.
  const parsed = typeof url === "string" && URL.canParse(url) ? new URL(url) : undefined;
  if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.username || parsed.password) {
    throw new TypeError("url: expected an http(s) URL without credentials (not quoted: it may be a secret)");
  }
  // Spaces and line breaks at the ends go, as fetch drops them from a header's value (RFC 9110
  // §5.5); one inside, or a character no header carries, is refused here: the runtime's own error
  // for such a header quotes it whole, token included.
  const token = typeof given === "string" ? trimHeaderValue(given) : given;
  // Missing or empty, every call would be a 401, which FAILURE_MODE=open also turns into no limit.
  if (typeof token !== "string" || token === "")
    throw new TypeError(`token: expected a non-empty string, got ${typeof given === "string" ? "an empty one" : quote(given)}`);
  const refused = firstRefused(token, inHeaderValue);
  if (refused) throw new TypeError(`token: contains ${refused.where}, which an HTTP header cannot carry`);
  const endpoint = parsed.href.replace(/\/$/, "");
  const send = fetchImpl ?? ((input: Parameters<typeof fetch>[0], init?: RequestInit) => fetch(input, init));
  // Built once: fetch copies a Headers natively, where it reads a plain object key by key.
  const headers = new Headers({ authorization: `Bearer ${token}`, "content-type": "application/json" });
  // A proxy's error body, a Redis error or a fetch failure may echo the Authorization header;
  // errors.ts promises that no message holds the token, so every error is built here.
  const mask = (text: string) => text.split(token).join("[redacted]");
  const fail = (kind: RedisRestError["kind"], command: string, detail: string, status?: number, cause?: unknown) =>
    new RedisRestError(kind, command, mask(detail), status, cause === undefined ? undefined : { cause });
  return async function request(body: [string, ...(string | number)[]], startedAt?: number): Promise<unknown> {
    const command = body[0];
    // An EVAL after NOSCRIPT gets what is left of the EVALSHA's bound (REDIS_TIMEOUT_MS bounds
    // the decision's call, not each try); with nothing left it is not sent.
    const left = startedAt === undefined ? timeoutMs : timeoutMs - (Date.now() - startedAt);
    if (left <= 0) throw fail("timeout", command, `no answer within ${timeoutMs} ms`);
    const signal = AbortSignal.timeout(left);
    let status: number;
    let text: string;
    try {
      // `manual`: Upstash never redirects, and a redirect followed would send the token and the
      // command wherever Location points; it fails as any other non-2xx answer.
      const response = await send(endpoint, { method: "POST", headers, body: JSON.stringify(body), signal, redirect: "manual" });
      status = response.status;
      text = await response.text();
    } catch (cause) {
      if (signal.aborted) throw fail("timeout", command, `no answer within ${timeoutMs} ms`, undefined, cause);
      throw fail("network", command, cause instanceof Error ? cause.message : String(cause), undefined, cause);
    }
    const parsed = parseBody(text);
    // docs/shim.md §4: a Redis error reply is 400 {"error": "..."}; anything else non-2xx is HTTP.
    if (status === 400 && typeof parsed?.error === "string") throw fail("reply", command, parsed.error, status);
    if (status < 200 || status > 299 || parsed === undefined || !("result" in parsed)) {
      // Masked before the cut too: `fail` would not find a start of the token left by the cut.
      const detail = typeof parsed?.error === "string" ? parsed.error : `unexpected body ${JSON.stringify(mask(text).slice(0, 100))}`;
      throw fail("http", command, detail, status);
    }
    return parsed.result;
  };
}

function parseBody(text: string): { result?: unknown; error?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
