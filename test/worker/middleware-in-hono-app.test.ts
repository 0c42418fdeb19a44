import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { rateLimit } from "ratewall/middleware";
import { describe, expect, it } from "vitest";
import { uniqueIpv4, uniquePrefix } from "./helpers.ts";

describe("the middleware in your own Hono app (README example)", () => {
  it("Should limit only the paths it is mounted on, through the package export", async () => {
    const app = new Hono();
    app.use(
      "/api/*",
      rateLimit({
        vars: {
          UPSTASH_REDIS_REST_URL: env.UPSTASH_REDIS_REST_URL,
          UPSTASH_REDIS_REST_TOKEN: env.UPSTASH_REDIS_REST_TOKEN,
          RATE_LIMIT: "1/1m",
          KEY_PREFIX: uniquePrefix(),
        },
      }),
    );
    app.get("/api/hello", (c) => c.json({ hello: "world" }));
    app.get("/public", (c) => c.text("free"));

    const headers = { "cf-connecting-ip": uniqueIpv4() };
    const first = await app.request("/api/hello", { headers });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ hello: "world" });
    expect(first.headers.get("ratelimit-policy")).toBe('"default";q=1;w=60');
    expect((await app.request("/api/hello", { headers })).status).toBe(429);
    expect((await app.request("/public", { headers })).status).toBe(200);
  });
});
