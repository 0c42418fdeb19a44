import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import type { LogEntry } from "../../src/middleware/rate-limit/log";
import { baseVars } from "./helpers";

describe("configuration errors, end to end", () => {
  it("Should refuse to create an app from bad settings, naming the variable, path and value", () => {
    expect(() => createApp({ vars: { ...baseVars, ROUTES: [{ pattern: "example.com/*", rules: ["10/10 secs"] }] } })).toThrow(
      'ROUTES[0].rules[0]: invalid window "10 secs" (expected <integer><ms|s|m|h|d>, e.g. "60s")',
    );
  });

  it("Should answer 500 and log the message when the Worker's env is bad, without showing it to the client", async () => {
    const logs: LogEntry[] = [];
    const app = createApp({ log: (entry) => logs.push(entry) });
    const badEnv = { ...env, RATE_LIMIT_ALGORITHM: "leaky" };
    const res = await app.request("https://example.com/", { headers: { "cf-connecting-ip": "203.0.113.7" } }, badEnv);
    expect(res.status).toBe(500);
    expect(await res.text()).toBe("Internal Server Error: ratewall is misconfigured; see the Worker's logs.");
    expect(logs).toEqual([
      expect.objectContaining({ event: "config-error", cause: 'RATE_LIMIT_ALGORITHM: unknown algorithm "leaky" (expected one of fixed-window, sliding-log, sliding-window, sliding-window-approx, token-bucket)' }),
    ]);
  });

  it("Should name the missing token without quoting anything", async () => {
    const logs: LogEntry[] = [];
    const app = createApp({ log: (entry) => logs.push(entry) });
    const res = await app.request("https://example.com/", {}, { ...env, UPSTASH_REDIS_REST_TOKEN: undefined });
    expect(res.status).toBe(500);
    expect(logs[0]).toMatchObject({ cause: "UPSTASH_REDIS_REST_TOKEN: is required (set it with `wrangler secret put UPSTASH_REDIS_REST_TOKEN`)" });
  });
});
