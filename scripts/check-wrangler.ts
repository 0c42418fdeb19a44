/**
 * @module The checks `npm run check-config` runs over a parsed wrangler.toml: the same
 * `readSettings` the Worker runs, for `[vars]` and for each `[env.<name>.vars]` (wrangler does not
 * inherit `vars` into environments), plus the checks only a file allows: no unknown variable
 * (a typo would otherwise be silently ignored) and no token in plain text.
 */
import { ConfigError } from "../src/errors.ts";
import { readSettings, VARIABLES, type Vars } from "../src/settings.ts";

/** Stands in for the secret, which lives in `wrangler secret`, not in the file. */
const SECRET_PLACEHOLDER = "set-with-wrangler-secret-put";

/**
 * Throws the first {@link ConfigError} found in a parsed wrangler config; returns the names of
 * the variable sets it checked.
 *
 * @example
 * checkWranglerConfig(parseToml(text)); // ["[vars]", "[env.staging.vars]"]
 */
export function checkWranglerConfig(config: Record<string, unknown>): string[] {
  const sets: Array<[string, unknown]> = [["[vars]", config.vars ?? {}]];
  const envs = (config.env ?? {}) as Record<string, { vars?: unknown }>;
  for (const [name, env] of Object.entries(envs)) sets.push([`[env.${name}.vars]`, env?.vars ?? {}]);
  for (const [where, vars] of sets) checkVars(where, vars);
  return sets.map(([where]) => where);
}

/** Loopback, private and link-local hosts (RFC 1918, RFC 4193, RFC 3927): no deployed Worker reaches them. */
const LOCAL_HOST =
  /^(localhost|.*\.localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|172\.(1[6-9]|2\d|3[01])\.\d+\.\d+|169\.254\.\d+\.\d+|\[(::1?|f[cd][0-9a-f]*:.*|fe[89ab][0-9a-f]*:.*)\])$/i;

/**
 * What a valid file may still get wrong for a deploy: a Redis URL that only this machine or its
 * network reaches (the shipped file's, for `wrangler dev` against a local shim).
 *
 * @example
 * deployWarnings({ vars: { UPSTASH_REDIS_REST_URL: "http://127.0.0.1:8079" } });
 * // ["[vars] UPSTASH_REDIS_REST_URL points at 127.0.0.1, which only this machine reaches: …"]
 */
export function deployWarnings(config: Record<string, unknown>): string[] {
  const sets: Array<[string, unknown]> = [["[vars]", config.vars]];
  for (const [name, env] of Object.entries((config.env ?? {}) as Record<string, { vars?: unknown }>)) sets.push([`[env.${name}.vars]`, env?.vars]);
  return sets.flatMap(([where, vars]) => {
    const url = (vars as Record<string, unknown> | undefined)?.UPSTASH_REDIS_REST_URL;
    const host = localForm(typeof url === "string" && URL.canParse(url) ? new URL(url).hostname : "");
    if (!LOCAL_HOST.test(host)) return [];
    const reach = /^(localhost|.*\.localhost|127\.|0\.|\[::1\])/.test(host) ? "only this machine reaches" : "only its private network reaches";
    return [`${where} UPSTASH_REDIS_REST_URL points at ${host}, which ${reach}: set your database's URL before \`wrangler deploy\``];
  });
}

/** A host as {@link LOCAL_HOST} reads it: without a trailing dot, an IPv4-mapped IPv6 address as its IPv4 one. */
function localForm(host: string): string {
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/i.exec(host);
  if (!mapped) return host.replace(/\.$/, "");
  const [high, low] = [Number.parseInt(mapped[1]!, 16), Number.parseInt(mapped[2]!, 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

function checkVars(where: string, vars: unknown): void {
  if (typeof vars !== "object" || vars === null || Array.isArray(vars)) throw new ConfigError(where, "", "expected a table of variables");
  for (const name of Object.keys(vars)) {
    if (!(VARIABLES as readonly string[]).includes(name)) {
      throw new ConfigError(where, "", `unknown variable ${JSON.stringify(name)} (expected one of ${VARIABLES.join(", ")})`);
    }
  }
  for (const secret of ["UPSTASH_REDIS_REST_TOKEN", "ADMIN_TOKEN"]) {
    if (secret in vars) throw new ConfigError(where, "", `${secret} is a secret: remove it from the file and run \`wrangler secret put ${secret}\``);
  }
  try {
    readSettings({ ...(vars as Vars), UPSTASH_REDIS_REST_TOKEN: SECRET_PLACEHOLDER });
  } catch (error) {
    // Top-level messages stay as the Worker prints them; an environment's say which one.
    if (where === "[vars]" || !(error instanceof ConfigError)) throw error;
    throw new ConfigError(where, "", error.message);
  }
}
