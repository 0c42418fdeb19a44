import { describe, expect, it } from "vitest";
import { BLOCK_RECHECK_MS, createBlockCache, secondsLeft } from "./block-cache.ts";
import type { Decision } from "./limiter/types.ts";

const decision: Decision = { allowed: false, rule: "default", rules: [], retryAfter: 10 };

describe("createBlockCache", () => {
  it("Should hold a block until its time, and forget it from then on", () => {
    const blocks = createBlockCache(10);
    blocks.set("a", { until: 1_000, recheckAt: 1_000, decision });
    expect(blocks.get("a", 999)?.until).toBe(1_000);
    expect(blocks.get("a", 1_000)).toBeUndefined();
    expect(blocks.size).toBe(0);
  });

  it("Should evict the least recently used client when full", () => {
    const blocks = createBlockCache(2);
    blocks.set("a", { until: 1_000, recheckAt: 1_000, decision });
    blocks.set("b", { until: 1_000, recheckAt: 1_000, decision });
    blocks.get("a", 0);
    blocks.set("c", { until: 1_000, recheckAt: 1_000, decision });
    expect(blocks.get("b", 0)).toBeUndefined();
    expect(blocks.get("a", 0)).toBeDefined();
    expect(blocks.get("c", 0)).toBeDefined();
    expect(blocks.size).toBe(2);
  });

  it("Should forget a client on delete", () => {
    const blocks = createBlockCache(2);
    blocks.set("a", { until: 1_000, recheckAt: 500, decision });
    blocks.delete("a");
    expect(blocks.get("a", 0)).toBeUndefined();
  });

  it("Should find a line due once per BLOCK_RECHECK_MS for a client, again at once after a delete, and keep as many clients as blocks", () => {
    const blocks = createBlockCache(2);
    expect([0, 100, BLOCK_RECHECK_MS - 1, BLOCK_RECHECK_MS].map((now) => blocks.lineDue("a", now))).toEqual([true, false, false, true]);
    blocks.delete("a");
    expect(blocks.lineDue("a", BLOCK_RECHECK_MS + 1)).toBe(true);
    // A third client pushes out the least recent one's line, which is then due again.
    expect([blocks.lineDue("b", 0), blocks.lineDue("c", 0), blocks.lineDue("a", 1), blocks.lineDue("b", 1)]).toEqual([true, true, true, true]);
    expect(blocks.lineDue("c", 1)).toBe(true);
  });

  it("Should refuse a capacity that is not a positive integer", () => {
    expect(() => createBlockCache(0)).toThrow("Block cache capacity must be a positive integer, got 0");
  });

  it("Should count a block's Retry-After down to its end, in whole seconds and never below 1", () => {
    const block = { until: 10_500, recheckAt: 5_000, decision };
    expect([0, 5_000, 9_600, 10_499].map((now) => secondsLeft(block, now))).toEqual([11, 6, 1, 1]);
  });
});
