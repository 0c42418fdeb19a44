/**
 * @module What `import … from "ratewall"` gives a Hono user (package.json `exports`, README
 * "Install"): the middleware, the Redis limiter with its Upstash REST runner, the single-process
 * memory limiter, their errors and the public types. The Worker itself is src/index.ts.
 */
export * from "./middleware/rate-limit/index.ts";
export * from "./limiter/index.ts";
export { createRedisRunner, type RedisRunnerOptions } from "./redis/client.ts";
export { ConfigError, RedisRestError } from "./errors.ts";
