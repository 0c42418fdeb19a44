import { describe, expect, it } from "vitest";
import { positiveNumber } from "./flags.ts";

describe("the bench tools' numeric flags", () => {
  it("Should take a positive number, and a whole one where an integer is asked for", () => {
    expect(positiveNumber("--seconds", "0.5", false)).toBe(0.5);
    expect(positiveNumber("--rounds", "12", true)).toBe(12);
  });

  it("Should refuse zero, a fraction where an integer is asked for, and text, naming the flag and the value", () => {
    expect(() => positiveNumber("--seconds", "0", false)).toThrow('--seconds must be a positive number, got "0"');
    expect(() => positiveNumber("--requests", "1.5", true)).toThrow('--requests must be a positive integer, got "1.5"');
    expect(() => positiveNumber("--rounds", "ten", true)).toThrow('--rounds must be a positive integer, got "ten"');
  });
});
