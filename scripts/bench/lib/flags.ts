/**
 * @module Checks the numeric flags of the bench's tools (`bench:variants`, `bench:latency`), so a
 * typo stops the run at once with the flag and the value, instead of a run of NaN rounds.
 */

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
