/**
 * @module Shared by the command lines (the shim's and the admin's): `node:util`'s `parseArgs`
 * throws plain errors for an unknown flag or a missing value; each CLI answers those with its own
 * usage error, which its entry point prints with the usage text and exit code 2 or 1.
 */

/**
 * Runs `parse` and rethrows what it throws as a `UsageError` with the same message.
 *
 * @example
 * const { values } = usageErrors(CliUsageError, () => parseArgs({ args: argv, options }));
 */
export function usageErrors<T>(UsageError: new (message: string) => Error, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
