/**
 * @module Which environment variables `npm start` hands to the Worker, and how. The list of names
 * is the Worker's own (`VARIABLES` in src/settings.ts, README.md's configuration table), so a
 * variable the Worker learns to read is passed on without touching this file. They are checked as
 * the Worker will read them before anything starts, and the secrets go through a file only this
 * user can read, never on wrangler's command line, where `ps` shows them to every local user.
 */
import { existsSync, readFileSync } from "node:fs";
import { meantVariable, readSettings, VARIABLES } from "../../src/settings.ts";
import { parseWranglerFile, wranglerFile } from "../wrangler-file.ts";

/** Every variable the Worker reads. */
export const WORKER_VARIABLES: readonly string[] = VARIABLES;

/** The variables that hold secrets: passed to `wrangler dev` in an env file (`--env-file`). */
const SECRETS = new Set(["UPSTASH_REDIS_REST_TOKEN", "ADMIN_TOKEN"]);

/**
 * Every Worker variable set (non-empty) in `env`, then `overrides`, which win (the local stack's
 * own shim URL, token and origin).
 *
 * @example
 * workerVars({ RATE_LIMIT: "10/1s", HOME: "/root" }, { ORIGIN_URL: "http://127.0.0.1:9000" });
 * // → { RATE_LIMIT: "10/1s", ORIGIN_URL: "http://127.0.0.1:9000" }
 */
export function workerVars(env: Record<string, string | undefined>, overrides: Record<string, string>): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const name of WORKER_VARIABLES) {
    const value = env[name];
    if (value !== undefined && value !== "") vars[name] = value;
  }
  return Object.assign(vars, overrides);
}

/**
 * A warning for each name in `env` that looks like a Worker variable misspelled: `npm start`
 * passes on only the exact names, so `RATE_LIMT=1/1s` would leave the default limit in force
 * without a word. A warning, not a stop: a shell's environment holds other programs' names too.
 *
 * @example
 * misspeltWorkerVars({ RATE_LIMT: "1/1s", HOME: "/root" });
 * // → ['RATE_LIMT is not a Worker variable, so it is not passed on (did you mean RATE_LIMIT?)']
 */
export function misspeltWorkerVars(env: Record<string, string | undefined>): string[] {
  return Object.keys(env).flatMap((name) => {
    const meant = meantVariable(name);
    return meant ? [`${name} is not a Worker variable, so it is not passed on (did you mean ${meant}?)`] : [];
  });
}

/**
 * Throws the error the Worker would answer every request with (a `ConfigError` naming the
 * variable and the value), so that `npm start` stops before it says it is ready. `fileVars` are
 * wrangler.toml's `[vars]`, which the Worker gets under `vars` (`--var` wins).
 *
 * @example
 * checkWorkerVars({ RATE_LIMIT: "10 per second", … }); // throws 'RATE_LIMIT: invalid rule "10 per second" …'
 */
export function checkWorkerVars(vars: Record<string, string>, fileVars: Record<string, unknown> = {}): void {
  readSettings({ ...fileVars, ...vars });
}

/**
 * The `[vars]` of the configuration file `wrangler dev` reads from `dir` (wrangler-file.ts:
 * wrangler.json, wrangler.jsonc or wrangler.toml); none without one.
 *
 * @example
 * wranglerFileVars(process.cwd()); // { UPSTASH_REDIS_REST_URL: "http://127.0.0.1:8079", RATE_LIMIT: "100/60s", … }
 */
export function wranglerFileVars(dir: string): Record<string, unknown> {
  const file = wranglerFile(dir);
  if (!existsSync(file)) return {};
  const vars = parseWranglerFile(readFileSync(file, "utf8"), file).vars;
  return typeof vars === "object" && vars !== null ? (vars as Record<string, unknown>) : {};
}

/**
 * The `wrangler dev --var NAME:value` arguments for every variable but the secrets.
 *
 * @example
 * workerVarArgs({ RATE_LIMIT: "10/1s", ADMIN_TOKEN: "…" }); // → ["--var", "RATE_LIMIT:10/1s"]
 */
export function workerVarArgs(vars: Record<string, string>): string[] {
  // wrangler splits each pair at the first ":", so values may contain colons (URLs, JSON).
  return Object.entries(vars).flatMap(([name, value]) => (SECRETS.has(name) ? [] : ["--var", `${name}:${value}`]));
}

/**
 * The secrets as an env file's text for `wrangler dev --env-file`, in dotenv's syntax: each value
 * between quotes it does not hold (single quotes or backticks, which dotenv takes literally; or
 * double quotes, where it expands `\n`, so only for a value without a backslash), each `$`
 * escaped.
 *
 * @example
 * secretsEnvFile({ ADMIN_TOKEN: "abc", RATE_LIMIT: "10/1s" }); // → "ADMIN_TOKEN='abc'\n"
 */
export function secretsEnvFile(vars: Record<string, string>): string {
  let text = "";
  for (const [name, value] of Object.entries(vars)) {
    if (!SECRETS.has(name)) continue;
    // wrangler expands `$NAME` and `${NAME}` in every value, quoted or not (dotenv-expand), and
    // reads `\$` as `$`.
    const escaped = value.replaceAll("$", "\\$");
    const quote = ["'", "`", '"'].find((mark) => !escaped.includes(mark) && !(mark === '"' && escaped.includes("\\")));
    if (quote === undefined || /[\r\n]/.test(value))
      throw new Error(`${name}: a line break, or every kind of quote with a backslash, cannot be passed to wrangler dev`);
    text += `${name}=${quote}${escaped}${quote}\n`;
  }
  return text;
}
