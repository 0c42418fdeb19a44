/**
 * @module Helpers for the end-to-end tests: an app per test, built with `createApp` against the
 * real shim, Redis and echo origin that globalSetup started, with its own key prefix (so tests
 * never share counters), a movable clock and a count of the Redis calls it made.
 */
import { env } from "cloudflare:workers";
import { createApp, type AppDeps } from "../../src/app.ts";
import type { LogEntry } from "../../src/middleware/rate-limit/log.ts";
import type { Vars } from "../../src/settings.ts";

let serial = 0;

/** A key prefix no other test uses. */
export function uniquePrefix(): string {
  return `t${Date.now().toString(36)}${(serial++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/** A random address in 198.18.0.0/15 (RFC 2544 benchmarking space). */
export function uniqueIpv4(): string {
  const n = Math.floor(Math.random() * 2 ** 17);
  return `198.${18 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
}

/** A random /64 in 2001:db8::/32 (RFC 3849 documentation space), as a prefix to add an interface id to. */
export function uniqueIpv6Prefix(): string {
  // Never 0: `2001:db8:abcd:0::/64` is printed `2001:db8:abcd::/64` (RFC 5952), and a test that
  // compares the prefixes it wrote with those the API lists would fail once in 130 runs.
  const hex = () => (1 + Math.floor(Math.random() * 0xffff)).toString(16);
  return `2001:db8:${hex()}:${hex()}`;
}

/** The bindings vitest.config.ts gives the Worker: the shim, its token and the echo origin. */
export const baseVars: Vars = {
  UPSTASH_REDIS_REST_URL: env.UPSTASH_REDIS_REST_URL,
  UPSTASH_REDIS_REST_TOKEN: env.UPSTASH_REDIS_REST_TOKEN,
  ORIGIN_URL: env.ORIGIN_URL,
};

/** What the echo origin answers. */
export interface Echo {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * A Redis `fetch` that answers 500 (a Redis error) while `down` is set, and passes through
 * otherwise: for tests that need Redis to fail partway through.
 *
 * @example
 * const redis = switchableRedis();
 * const t = testApp({}, { redisFetch: redis.fetch });
 * redis.down = true;
 */
export function switchableRedis(): { down: boolean; fetch: typeof fetch } {
  const redis: { down: boolean; fetch: typeof fetch } = {
    down: false,
    fetch: ((input: RequestInfo | URL, init?: RequestInit) =>
      redis.down ? Promise.resolve(new Response('{"error":"ERR internal"}', { status: 500 })) : fetch(input, init)) as typeof fetch,
  };
  return redis;
}

/**
 * An app with its own prefix, clock and logs. `redisCalls` counts the fetches made to Redis.
 * `admin` calls its admin API as an operator does: `vars.ADMIN_TOKEN` as the bearer, from an
 * address no test counts.
 *
 * @example
 * const t = testApp({ RATE_LIMIT: "5/10s" });
 * const res = await t.get("/hello", { ip: uniqueIpv4() });
 * await testApp({ ADMIN_TOKEN }).admin(`reset?client=${ip}`, "POST");
 */
export function testApp(vars: Vars = {}, deps: Partial<AppDeps> = {}) {
  // Starts on a whole minute, so that every window dividing a minute starts with the test.
  const clock = { now: Math.ceil(Date.now() / 60_000) * 60_000 };
  const logs: LogEntry[] = [];
  const counter = { redisCalls: 0 };
  const redisFetch = deps.redisFetch ?? fetch;
  const app = createApp({
    vars: { ...baseVars, KEY_PREFIX: uniquePrefix(), ...vars },
    clock: () => clock.now,
    log: (entry) => logs.push(entry),
    ...deps,
    redisFetch: (input, init) => {
      counter.redisCalls++;
      return redisFetch(input, init);
    },
  });
  const request = (path: string, { ip, headers = {}, ...init }: RequestInit & { ip?: string; headers?: Record<string, string> } = {}) =>
    app.request(
      path.startsWith("http") ? path : `https://example.com${path}`,
      { ...init, headers: { ...(ip ? { "cf-connecting-ip": ip } : {}), ...headers } },
      env,
    );
  const admin = (path: string, method = "GET") =>
    request(`/__ratewall/${path}`, { method, ip: "192.0.2.1", headers: { authorization: `Bearer ${String(vars.ADMIN_TOKEN)}` } });
  return { app, clock, logs, counter, request, admin, get: (path: string, ip: string, headers: Record<string, string> = {}) => request(path, { ip, headers }) };
}
