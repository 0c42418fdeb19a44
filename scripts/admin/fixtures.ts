/**
 * @module Test data: answers shaped as the admin API contract describes them, shared by the
 * formatting tests and the fake Worker the CLI test talks to.
 */
import type { ConfigAnswer, ListAnswer, ResetAnswer, StatusAnswer, TierAnswer } from "./answers.ts";

/** A client with two rules on the `api` route, one of them nearly used up. */
export const STATUS: StatusAnswer = {
  client: "203.0.113.7",
  route: "api",
  rules: [
    { name: "burst", algorithm: "token-bucket", limit: 10, windowMs: 1_000, remaining: 2, resetMs: 800 },
    { name: "hourly", algorithm: "sliding-window", limit: 1_000, windowMs: 3_600_000, remaining: 997, resetMs: 3_540_000 },
  ],
};

/** Two counters deleted. */
export const RESET: ResetAnswer = { client: "203.0.113.7", route: "api", deleted: 2 };

/** A deny for ten minutes. */
export const DENIED: ListAnswer = { client: "203.0.113.7", list: "deny", ttlSeconds: 600 };

/** An allow taken away that was not there. */
export const UNALLOWED: ListAnswer = { client: "203.0.113.7", list: "allow", deleted: false };

/** A client put on the `pro` tier. */
export const TIER_SET: TierAnswer = { client: "203.0.113.7", tier: "pro" };

/** Two routes and the default one, a tier, a global deny list, and a field the contract does not name (`future`). */
export const CONFIG: ConfigAnswer = {
  redis: { url: "https://eu1.upstash.io", token: "[redacted]", timeoutMs: 500 },
  defaultRoute: {
    pattern: "*/*",
    scope: "",
    rules: [{ name: "default", algorithm: "fixed-window", limit: 100, windowMs: 60_000 }],
    unlimited: false,
    key: "ip",
    cost: 1,
    mode: "enforce",
    count: "all",
    allow: [],
    deny: [],
  },
  routes: [
    {
      pattern: "api.example.com/v1/*",
      scope: "api",
      rules: [
        { name: "burst", algorithm: "token-bucket", limit: 10, windowMs: 1_000, burst: 20 },
        { name: "hourly", algorithm: "sliding-window", limit: 1_000, windowMs: 3_600_000 },
      ],
      unlimited: false,
      key: "header:x-api-key",
      cost: 1,
      mode: "enforce",
      origin: "https://origin.example.com",
      methods: ["GET", "POST"],
      count: "all",
      allow: ["ip:192.0.2.0/24"],
      deny: [],
    },
    {
      pattern: "example.com/health",
      scope: "example.com/health",
      rules: [],
      unlimited: true,
      key: "ip",
      cost: 1,
      mode: "shadow",
      count: "all",
      allow: [],
      deny: [],
    },
    {
      pattern: "example.com/search",
      scope: "example.com/search",
      rules: [{ name: "default", algorithm: "fixed-window", limit: 10, windowMs: 60_000 }],
      tiers: { defaultTier: "free", tiers: { free: [{ name: "default", algorithm: "fixed-window", limit: 10, windowMs: 60_000 }] } },
      unlimited: false,
      key: "ip",
      cost: 1,
      mode: "enforce",
      count: [200],
      allow: [],
      deny: [],
    },
  ],
  tiers: { free: [{ name: "default", algorithm: "fixed-window", limit: 10, windowMs: 60_000 }] },
  failureMode: "open",
  keyPrefix: "rate",
  headers: "draft",
  ipv6Subnet: 64,
  trustedProxies: 0,
  originTimeoutMs: 30_000,
  adminToken: "[redacted]",
  analytics: { client: "hashed" },
  allow: [],
  deny: ["country:T1", "ip:2001:db8::/32"],
  future: ["a", 1],
};
