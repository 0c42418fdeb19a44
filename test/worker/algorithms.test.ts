import { describe, expect, it } from "vitest";
import { algorithmNames } from "../../src/limiter/index.ts";
import { testApp, uniqueIpv4 } from "./helpers.ts";

describe.each(algorithmNames)("RATE_LIMIT=3/10s with %s, through the shim and Redis", (algorithm) => {
  it("Should allow three requests with their headers, then answer 429 with Retry-After and the same headers", async () => {
    const t = testApp({ RATE_LIMIT: "3/10s", RATE_LIMIT_ALGORITHM: algorithm, RATE_LIMIT_HEADERS: "both" });
    const ip = uniqueIpv4();
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.get("/", ip);
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-policy")).toBe('"default";q=3;w=10');
      remaining.push(res.headers.get("x-ratelimit-remaining")!);
    }
    expect(remaining).toEqual(["2", "1", "0"]);

    const refused = await t.get("/", ip);
    expect(refused.status).toBe(429);
    expect(await refused.text()).toBe("Too many requests");
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    // A sliding window weighs the previous window in, so its wait may exceed one window.
    expect(retryAfter).toBeLessThanOrEqual(20);
    expect(refused.headers.get("ratelimit")).toMatch(/^"default";r=0;t=\d+$/);
    expect(refused.headers.get("x-ratelimit-limit")).toBe("3");

    // Another client is not affected.
    expect((await t.get("/", uniqueIpv4())).status).toBe(200);
  });

  it("Should allow the client again once Retry-After has passed", async () => {
    const t = testApp({ RATE_LIMIT: "2/10s", RATE_LIMIT_ALGORITHM: algorithm });
    const ip = uniqueIpv4();
    await t.get("/", ip);
    await t.get("/", ip);
    const refused = await t.get("/", ip);
    expect(refused.status).toBe(429);
    t.clock.now += Number(refused.headers.get("retry-after")) * 1000;
    expect((await t.get("/", ip)).status).toBe(200);
  });
});
