/**
 * @module `npm run check-config [path/to/wrangler.toml …]` (envoy's config_check_cmd): runs the
 * Worker's own settings parser over each file's `[vars]` before a deploy. Without a path it checks
 * the file wrangler would deploy with (`wrangler.json`, `wrangler.jsonc` or `wrangler.toml`);
 * a relative path is read from the directory npm was run in. Prints `ok` (and a warning for a
 * Redis URL no deployed Worker reaches) per file and exits 0, or prints each error (variable,
 * path, bad value) and exits 1.
 */
import { readFileSync, realpathSync } from "node:fs";
import { relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { checkWranglerConfig, deployWarnings } from "./check-wrangler.ts";
import { readFlags } from "./flags.ts";
import { parseWranglerFile, wranglerFile } from "./wrangler-file.ts";

/**
 * Checks the text of a wrangler configuration file (TOML, or JSON with comments when `file` ends
 * in `.json` or `.jsonc`); returns the line to print and the exit code. `warn: false` leaves out
 * the warnings, which only matter to a deploy.
 *
 * @example
 * checkConfigText('[vars]\nRATE_LIMIT = "10 per second"', "wrangler.toml");
 * // { code: 1, output: 'wrangler.toml: RATE_LIMIT: invalid window "second" …' }
 */
export function checkConfigText(
  text: string,
  file: string,
  { warn = true, env }: { warn?: boolean; env?: string | undefined } = {},
): { code: number; output: string } {
  try {
    const config = parseWranglerFile(text, file);
    const sets = checkWranglerConfig(config, { env });
    const warnings = warn ? deployWarnings(config, { env }).map((warning) => `\n${file}: warning: ${warning}`) : [];
    return { code: 0, output: `${file}: ok (${sets.join(", ")})${warnings.join("")}` };
  } catch (error) {
    return { code: 1, output: `${file}: ${(error as Error).message}` };
  }
}

// Node resolves symlinks in the module's own URL, not in argv: compare real paths, or a project
// reached through a symlink would run nothing and exit 0, a check that silently passes.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const usage =
    "usage: npm run check-config [-- --env NAME] [path/to/wrangler.toml …]  (default: the wrangler.json, wrangler.jsonc or wrangler.toml wrangler would use; --env, or CLOUDFLARE_ENV, checks that environment's vars only; exits 1 if any file is wrong)";
  const parsed = readFlags(usage, { options: { env: { type: "string", short: "e" } }, allowPositionals: true }, (flags) => flags);
  const args = parsed.positionals;
  // wrangler itself takes CLOUDFLARE_ENV for --env, and the hook inherits the environment.
  const env = parsed.values.env ?? (process.env.CLOUDFLARE_ENV || undefined);
  let failed = false;
  // npm runs scripts in the package's directory; a path the user typed is from theirs (INIT_CWD).
  const from = process.env.INIT_CWD ?? process.cwd();
  const found = wranglerFile(process.cwd());
  const files: Array<[name: string, path: string]> =
    args.length > 0 ? args.map((file) => [file, resolve(from, file)]) : [[relative(process.cwd(), found), found]];
  for (const [file, path] of files) {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      console.error(`${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      failed = true;
      continue;
    }
    // Run by `wrangler dev` (wrangler.toml's [build] hook sets WRANGLER_COMMAND), a local Redis
    // URL is the point: the warnings are for a deploy.
    const { code, output } = checkConfigText(text, file, { warn: process.env.WRANGLER_COMMAND !== "dev", env });
    (code === 0 ? console.log : console.error)(output);
    failed ||= code !== 0;
  }
  process.exit(failed ? 1 : 0);
}
