/**
 * @module The one table of defaults: what each variable means when it is unset, written as the
 * variable's own text. `readSettings` reads an unset variable by reading this text through the
 * same validator as a set one, and a test (test/node/settings-defaults.test.ts) holds README.md's
 * configuration table and `wrangler.toml`'s `[vars]` to the same values.
 */

/**
 * Defaults of the variables that have one. The others are required (the Upstash URL and token) or
 * mean "off" when unset (ORIGIN_URL, ROUTES, ADMIN_TOKEN, ALLOW, DENY, TIERS).
 */
export const DEFAULTS = {
  RATE_LIMIT: "100/60s",
  RATE_LIMIT_ALGORITHM: "fixed-window",
  FAILURE_MODE: "open",
  /**
   * Bound on one decision's Redis call. A Worker far from the Upstash primary pays up to ~250 ms
   * per round trip, and a cold script costs two (EVALSHA, NOSCRIPT, EVAL): 500 ms admits that and
   * caps what an outage adds to each request (README, "Failure modes").
   */
  REDIS_TIMEOUT_MS: "500",
  KEY_PREFIX: "rate",
  MODE: "enforce",
  RATE_LIMIT_HEADERS: "draft",
  IPV6_SUBNET: "64",
  TRUSTED_PROXIES: "0",
  ORIGIN_TIMEOUT_MS: "30000",
  ANALYTICS_CLIENT: "hashed",
} as const;

/** A variable with a default. */
export type Defaulted = keyof typeof DEFAULTS;
