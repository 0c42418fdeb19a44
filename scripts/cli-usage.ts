/**
 * @module Shared by the command lines (the shim's and the admin's): `node:util`'s `parseArgs`
 * throws plain errors for an unknown flag or a missing value; each CLI answers those with its own
 * usage error, which its entry point prints with the usage text and exit code 2 or 1. And
 * `--version`, which both answer alike.
 */
import { existsSync, readFileSync } from "node:fs";

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
    // Node's refusal of an unknown flag goes on to advise `-- "--flag"` for a positional that starts
    // with `-`. For a long flag, nearly always a misspelt one, that is noise (the usage printed after
    // it lists the flags); for `-abc`, as an API key may begin, it is the way out, and stays.
    throw new UsageError((error as Error).message.replace(/^(Unknown option '--[^']*')\. To specify a positional argument .*$/s, "$1"));
  }
}

/**
 * ratewall's version when `argv` asks for it (`--version`, anywhere among the flags), from the
 * package.json above this file: the repository's in a clone, the package's once installed (whose
 * dist/ sits one level deeper than scripts/ does here).
 *
 * @example
 * versionAsked(["--version"]); // "0.2.0"
 * versionAsked(["--port", "8079"]); // undefined
 */
export function versionAsked(argv: readonly string[]): string | undefined {
  if (!argv.includes("--version")) return undefined;
  // Up to the root, which is its own parent (`/`, or `C:/` on Windows).
  for (let dir = new URL(".", import.meta.url), up = new URL("..", dir); ; dir = up, up = new URL("..", dir)) {
    const file = new URL("package.json", dir);
    if (existsSync(file)) {
      const { name, version } = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (name === "ratewall" && version) return version;
    }
    if (up.href === dir.href) break;
  }
  throw new Error("no ratewall package.json above this command line, to read its version from");
}
