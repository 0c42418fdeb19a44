import { describe, expect, it } from "vitest";
import { interleave } from "./interleave.ts";

describe("interleave", () => {
  it("Should run every contender once per round, and each one both before and after each other one over two rounds", async () => {
    const order: string[][] = [[], [], [], []];
    const contenders = ["a", "b", "c", "d", "e", "f", "g"];
    const byContender = await interleave(contenders, 4, async (contender, round) => {
      order[round]!.push(contender);
      return round;
    });
    for (const round of order) expect([...round].sort()).toEqual(contenders);
    expect(byContender.a).toEqual([0, 1, 2, 3]);
    const follows = (round: string[], first: string, then: string) => round.indexOf(then) === round.indexOf(first) + 1;
    for (const first of contenders) {
      for (const then of contenders) {
        if (first !== then && order.some((round) => follows(round, first, then))) {
          expect(
            order.some((round) => follows(round, then, first)),
            `${then} right after ${first}, never the reverse`,
          ).toBe(true);
        }
      }
    }
    expect(new Set(order.map((round) => round[0])).size).toBe(4);
  });

  it("Should let every contender of an even count run first, and each pair in both orders", async () => {
    for (const contenders of [
      ["ratewall", "lean"],
      ["ratewall", "lean", "control", "variant"],
      ["a", "b", "c", "d", "e", "f"],
    ]) {
      const order: string[][] = Array.from({ length: 2 * contenders.length }, () => []);
      await interleave(contenders, order.length, async (contender, round) => void order[round]!.push(contender));
      expect(new Set(order.map((round) => round[0])), contenders.join()).toEqual(new Set(contenders));
      for (const round of order) expect([...round].sort()).toEqual([...contenders].sort());
      for (const [first, then] of contenders.flatMap((a) => contenders.filter((b) => b !== a).map((b) => [a, b] as const))) {
        const before = order.some((round) => round.indexOf(first) < round.indexOf(then));
        expect(before, `${first} before ${then}`).toBe(true);
      }
    }
  });
});
