import { describe, expect, it } from "vitest";
import { median, pairedRatio, ratioRange } from "./stats.ts";

describe("the statistics behind the published figures", () => {
  it("Should take the median by value, not as text, and leave the rounds in their order", () => {
    const rounds = [950, 1_100, 1_020];
    expect(median(rounds)).toBe(1_020);
    // cpu.ts publishes a contender's rounds after taking their median, then pairs them round by round.
    expect(rounds).toEqual([950, 1_100, 1_020]);
    expect(median([9, 100, 10, 1_000])).toBe(55);
  });

  it("Should pair each round with the same round of the other contender, and give the median of those ratios", () => {
    // Round by round 1, 2 and 0.5: a tie in the middle, where the ratio of the medians (3 / 5) would say 0.6.
    expect(pairedRatio([1, 10, 3], [1, 5, 6])).toBe(1);
    expect(pairedRatio([900, 1_000], [450, 520])).toBeCloseTo((900 / 450 + 1_000 / 520) / 2, 10);
  });

  it("Should give the range of the per-round ratios, lowest first", () => {
    expect(ratioRange([3, 4, 2], [2, 2, 4])).toEqual([0.5, 2]);
  });

  it("Should leave out a round whose ratio is not finite, from the ratio and from its range", () => {
    expect(pairedRatio([1, 2, 3], [1, 0, 1])).toBe(2);
    expect(ratioRange([1, 2, 3], [1, 0, 1])).toEqual([1, 3]);
    expect(ratioRange([0], [0])).toEqual([Number.NaN, Number.NaN]);
  });
});
