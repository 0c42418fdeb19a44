import { describe, expect, it } from "vitest";
import { bytes, int, num, percent, table } from "./markdown.ts";

describe("the report's number formatting", () => {
  it("Should round a whole number to the nearest, with thousands separators", () => {
    expect(int(1_234.6)).toBe("1,235");
  });

  it("Should print the decimals asked for", () => {
    expect(num(412.37, 0)).toBe("412");
    expect(num(0.1234, 3)).toBe("0.123");
  });

  it("Should print a share as a percentage", () => {
    expect(percent(0.00012)).toBe("0.012%");
  });

  it("Should print bytes in binary units", () => {
    expect(bytes(10_240)).toBe("10.0 KiB");
  });

  it("Should escape every pipe inside a cell, so that a cell never splits in two", () => {
    expect(table(["a"], [["x | y | z"]])).toBe("| a |\n|---|\n| x \\| y \\| z |");
  });
});
