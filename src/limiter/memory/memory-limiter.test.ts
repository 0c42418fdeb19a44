import { describe, expect, it } from "vitest";
import { createMemoryLimiter } from "./memory-limiter.ts";
import { ModelStore } from "./model-store.ts";

const rule = { name: "default", algorithm: "fixed-window" as const, limit: 2, windowMs: 1_000 };

describe("createMemoryLimiter", () => {
  it("Should decide like the Redis limiter, with the same Decision shape", async () => {
    const limiter = createMemoryLimiter([rule]);
    const decide = () => limiter.limit({ client: "c", scope: "", now: 250 });
    expect((await decide()).allowed).toBe(true);
    expect((await decide()).allowed).toBe(true);
    expect(await decide()).toEqual({
      allowed: false,
      rule: "default",
      rules: [{ rule: "default", limit: 2, remaining: 0, resetAt: 1_000, windowMs: 1_000 }],
      retryAt: 1_000,
      retryAfter: 1,
    });
  });

  it("Should forget idle clients, so that memory follows the active ones", async () => {
    const store = new ModelStore();
    const limiter = createMemoryLimiter([rule], { store });
    for (let i = 0; i < 999; i++) await limiter.limit({ client: `c${i}`, scope: "", now: 0 });
    expect(store.size).toBe(999);
    await limiter.limit({ client: "late", scope: "", now: 60_000 });
    expect(store.size).toBe(1);
  });
});
