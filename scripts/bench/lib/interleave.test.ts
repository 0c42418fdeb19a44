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
});
