/**
 * @module What `npm start` takes from the environment instead of starting it itself: a Redis
 * (`RATEWALL_REDIS_URL`) and an origin (`ORIGIN_URL`). An empty value counts as unset, as the
 * Worker reads its variables (README, "Configuration"): forwarded as it is, an empty `ORIGIN_URL`
 * would make the Worker its own origin.
 */
import { checkRedisUrl } from "../upstash-shim/cli-options.ts";

/** The services named in the environment; those absent are started by `npm start`. */
export interface StackUrls {
  redisUrl?: string;
  originUrl?: string;
}

/**
 * Reads `env`, refusing a Redis URL that is not one (the origin is checked with the Worker's
 * variables). Throws before anything starts, with the variable's name and any password masked.
 *
 * @example
 * stackUrls({ RATEWALL_REDIS_URL: "redis://127.0.0.1:6380", ORIGIN_URL: "" }); // → { redisUrl: "redis://127.0.0.1:6380" }
 */
export function stackUrls(env: Record<string, string | undefined>): StackUrls {
  const { RATEWALL_REDIS_URL: redisUrl, ORIGIN_URL: originUrl } = env;
  return { ...(redisUrl ? { redisUrl: checkRedisUrl("RATEWALL_REDIS_URL", redisUrl) } : {}), ...(originUrl ? { originUrl } : {}) };
}
