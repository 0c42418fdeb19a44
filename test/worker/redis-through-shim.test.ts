import { env } from "cloudflare:workers";
import { Redis } from "@upstash/redis/cloudflare";
import { describe, expect, it } from "vitest";

// Proves that code running in workerd reaches the test Redis through the Upstash REST shim, with
// the bindings vitest.config.ts passes in (UPSTASH_REDIS_REST_URL and _TOKEN).
describe("the Worker's Redis, through the Upstash REST shim", () => {
  const redis = Redis.fromEnv(env);

  it("Should write a value and read it back", async () => {
    const key = `worker-shim:${crypto.randomUUID()}`;
    await redis.set(key, "hello from workerd", { ex: 60 });
    expect(await redis.get(key)).toBe("hello from workerd");
  });

  it("Should run a Lua script with the allow-key-locking shebang, as the limiter's scripts do", async () => {
    const key = `worker-shim:${crypto.randomUUID()}`;
    const script = "#!lua flags=allow-key-locking\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])";
    expect(await redis.eval(script, [key], [5])).toBe(5);
    expect(await redis.eval(script, [key], [2])).toBe(7);
  });
});
