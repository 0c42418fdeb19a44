/**
 * @module Reads the command lines of the bench's tools (`bench:variants`, `bench:latency`) and of
 * `check-config`, so a typo stops the run at once with the flag and the value, instead of a stack
 * trace or a run of NaN rounds.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";

/**
 * `parseArgs` for a tool with this `usage` line: `--help` prints it and exits 0; an unknown flag,
 * a missing value, or a bad number ({@link positiveNumber}, inside `read`) prints the reason and
 * the usage and exits 2.
 *
 * @example
 * const rounds = readFlags("usage: npm run bench:variants -- FILE [--rounds N]", { options: { rounds: { type: "string", default: "10" } } }, ({ values }) => positiveNumber("--rounds", values.rounds, true));
 */
export function readFlags<const T extends ParseArgsConfig, R>(usage: string, config: T, read: (parsed: ReturnType<typeof parseArgs<T>>) => R): R {
  const args = config.args ?? process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h")) {
    console.log(usage);
    process.exit(0);
  }
  try {
    return read(parseArgs(config));
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    process.exit(2);
  }
}

/**
 * `value` as a number, which must be above zero and, with `integer`, whole.
 *
 * @example
 * positiveNumber("--rounds", "10", true); // → 10
 * positiveNumber("--seconds", "0", false); // throws: --seconds must be a positive number, got "0"
 */
export function positiveNumber(flag: string, value: string, integer: boolean): number {
  const n = Number(value);
  if (!(n > 0) || (integer && !Number.isInteger(n))) {
    throw new Error(`${flag} must be a positive ${integer ? "integer" : "number"}, got ${JSON.stringify(value)}`);
  }
  return n;
}
