import { describe, expect, it } from "vitest";
import { toDataPoint } from "./analytics-engine.ts";
import type { DecisionEvent } from "./decision-event.ts";

const event: DecisionEvent = {
  outcome: "refused",
  route: "login",
  rule: "default",
  algorithm: "fixed-window",
  limit: 5,
  remaining: 0,
  nearLimit: true,
  redisMs: 2,
};
const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;
const indexOf = (route: string) => toDataPoint({ ...event, route }).indexes[0]!;

describe("toDataPoint", () => {
  it("Should lay out an event by position: route as index, then the blobs and doubles the README's SQL reads", () => {
    expect(toDataPoint({ ...event, client: "5d1c", country: "NL", colo: "AMS" })).toEqual({
      indexes: ["login"],
      blobs: ["refused", "login", "default", "fixed-window", "5d1c", "NL", "AMS"],
      doubles: [5, 0, 1, 2],
    });
  });

  it("Should index by the whole route when its UTF-8 fits in Analytics Engine's 96 bytes", () => {
    expect(indexOf("é".repeat(48))).toBe("é".repeat(48));
    expect(indexOf("a".repeat(96))).toBe("a".repeat(96));
  });

  it("Should cut a longer route to at most 96 bytes on a character boundary, never inside a character", () => {
    expect(indexOf("a".repeat(97))).toBe("a".repeat(96));
    expect(indexOf(`a${"€".repeat(40)}`)).toBe(`a${"€".repeat(31)}`);
    // 1 + 23 × 4 = 93 bytes: a 24th emoji would not fit, and half of one is not a character.
    const cut = indexOf(`a${"😀".repeat(30)}`);
    // Compared as JSON, which spells out a lone surrogate, so that a failure can be printed.
    expect(JSON.stringify(cut)).toBe(JSON.stringify(`a${"😀".repeat(23)}`));
    expect(utf8Bytes(cut)).toBe(93);
  });
});
