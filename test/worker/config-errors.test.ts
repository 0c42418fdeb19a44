import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import type { LogEntry } from "../../src/middleware/rate-limit/log.ts";
import { baseVars } from "./helpers.ts";

describe("configuration errors, end to end", () => {
  it("Should refuse to create an app from bad settings, naming the variable, path and value", () => {
    expect(() => createApp({ vars: { ...baseVars, ROUTES: [{ pattern: "example.com/*", rules: ["10/10 secs"] }] } })).toThrow(
      'ROUTES[0].rules[0]: invalid window "10 secs" (expected <integer><ms|s|m|h|d>, e.g. "60s")',
    );
  });

  const route = { pattern: "example.com/*", rules: "10/1m" };
  it.each([
    [{ ALLOW: "ip:10.0.0.1" }, 'ALLOW: invalid JSON "ip:10.0.0.1" (expected a list such as ["ip:192.0.2.0/24", "country:T1", "asn:64496"])'],
    [
      { DENY: ["country:T1", "asn:64496", "ip:2001:db8::/32", "ip:10.0.0.0/33"] },
      'DENY[3]: invalid entry "ip:10.0.0.0/33" (prefix length must be 0 to 32 for IPv4)',
    ],
    [{ DENY: '["asn:0"]' }, 'DENY[0]: invalid entry "asn:0" (expected an AS number from 1 to 4294967295, digits only)'],
    [
      { ROUTES: [{ ...route, allow: ["ip:198.51.100.7", "country:UK"] }] },
      'ROUTES[0].allow[1]: invalid entry "country:UK" (expected an ISO 3166-1 alpha-2 code such as "DE" or "GB", "T1" for Tor or "XX" for unknown)',
    ],
    [{ ROUTES: [{ ...route, deny: "ip:10.0.0.1" }] }, 'ROUTES[0].deny: expected a list of entries such as ["ip:192.0.2.0/24"], got "ip:10.0.0.1"'],
    [
      { ROUTES: [{ ...route, methods: ["post", "FETCH"] }] },
      'ROUTES[0].methods[1]: unknown method "FETCH" (expected one of GET, HEAD, POST, PUT, DELETE, CONNECT, OPTIONS, TRACE, PATCH)',
    ],
    [{ ROUTES: [{ ...route, methods: [] }] }, 'ROUTES[0].methods: expected a non-empty list of methods, e.g. ["POST"], got []'],
    [{ ROUTES: [{ ...route, count: [401, 401] }] }, "ROUTES[0].count[1]: duplicate status code 401"],
    [{ ROUTES: [{ ...route, count: "some" }] }, 'ROUTES[0].count: expected a non-empty list of status codes, e.g. [401], or "all", got "some"'],
    [{ ROUTES: [{ ...route, key: "cf:city" }] }, 'ROUTES[0].key: invalid key source "cf:city" (expected "cf:asn" or "cf:country")'],
    [
      { ROUTES: [{ ...route, key: "query:a&b" }] },
      'ROUTES[0].key: invalid key source "query:a&b" (a query parameter name has 1 to 128 letters, digits, "_", ".", "~", "-", "[" or "]")',
    ],
    [{ ROUTES: [{ ...route, key: ["ip", ["cf:asn"]] }] }, 'ROUTES[0].key[1]: composite keys do not nest, got ["cf:asn"]'],
  ])("Should refuse %j with a message naming the variable, path and value", (vars, message) => {
    expect(() => createApp({ vars: { ...baseVars, ...vars } })).toThrow(message);
  });

  it("Should answer 500 and log the message when the Worker's env is bad, without showing it to the client", async () => {
    const logs: LogEntry[] = [];
    const app = createApp({ log: (entry) => logs.push(entry) });
    const badEnv = { ...env, RATE_LIMIT_ALGORITHM: "leaky" };
    const res = await app.request("https://example.com/", { headers: { "cf-connecting-ip": "203.0.113.7" } }, badEnv);
    expect(res.status).toBe(500);
    expect(await res.text()).toBe("Internal Server Error: ratewall is misconfigured; see the Worker's logs.");
    expect(logs).toEqual([
      expect.objectContaining({
        event: "config-error",
        cause:
          'RATE_LIMIT_ALGORITHM: unknown algorithm "leaky" (expected one of fixed-window, sliding-log, sliding-window, sliding-window-approx, token-bucket)',
      }),
    ]);
  });

  it("Should name the missing token without quoting anything", async () => {
    const logs: LogEntry[] = [];
    const app = createApp({ log: (entry) => logs.push(entry) });
    const res = await app.request("https://example.com/", {}, { ...env, UPSTASH_REDIS_REST_TOKEN: undefined });
    expect(res.status).toBe(500);
    expect(logs[0]).toMatchObject({
      cause: "UPSTASH_REDIS_REST_TOKEN: is required (on a Worker, `wrangler secret put UPSTASH_REDIS_REST_TOKEN`; on Node, in `rateLimit({ vars })`)",
    });
  });
});
