/**
 * @module What `import … from "ratewall"` gives a Hono user (package.json `exports`, README
 * "Install"): the middleware, the Redis limiter with its Upstash REST runner, the single-process
 * memory limiter, their errors and the public types. The Worker itself is src/index.ts.
 */
export * from "./middleware/rate-limit/index";
export * from "./limiter/index";
export { createRedisRunner, type RedisRunnerOptions } from "./redis/client";
export { ConfigError, RedisRestError } from "./errors";
