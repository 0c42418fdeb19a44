import { describe, expect, it } from "vitest";
import { parseDuration } from "./duration.ts";

describe("parseDuration", () => {
  it.each([
    ["500ms", 500],
    ["10s", 10_000],
    ["5m", 300_000],
    ["1h", 3_600_000],
    ["1d", 86_400_000],
  ])("Should read %s as %i ms", (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(["10 secs", "10", "1.5m", "0s", "-1s", "01s", "10S", "s", ""])("Should refuse %j", (text) => expect(parseDuration(text)).toBeUndefined());

  it("Should read a count of up to 10 digits, and refuse 11", () => {
    expect(parseDuration("1000000000ms")).toBe(1_000_000_000);
    expect(parseDuration("10000000000ms")).toBeUndefined();
  });
});
