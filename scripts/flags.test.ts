import { spawnSync } from "node:child_process";
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

  it("Should answer --help with the usage, and an unknown flag or a bad value with the reason and the usage, exit 2, no stack trace", () => {
    const run = (...args: string[]) => spawnSync("npx", ["tsx", "scripts/bench/variants.ts", ...args], { encoding: "utf8" });
    const usage = "usage: npm run bench:variants -- FILE [--concurrency N] [--rounds N] [--seconds S]";
    expect(run("--help")).toMatchObject({ status: 0, stdout: `${usage}\n` });
    expect(run("x.json", "--rounds", "0")).toMatchObject({ status: 2, stderr: `--rounds must be a positive integer, got "0"\n${usage}\n` });
    const unknown = run("x.json", "--round", "3");
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--round'");
    expect(unknown.stderr).not.toContain("    at ");
  }, 90_000);
});
