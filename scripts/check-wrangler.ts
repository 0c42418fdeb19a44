/**
 * @module The checks `npm run check-config` runs over a parsed wrangler.toml: the same
 * `readSettings` the Worker runs, for `[vars]` and for each `[env.<name>.vars]` (wrangler does not
 * inherit `vars` into environments), plus the checks only a file allows: no unknown variable
 * (a typo would otherwise be silently ignored) and no token in plain text.
 */
import { ConfigError } from "../src/errors.ts";
import { clientIp } from "../src/keys/ip.ts";
import { readSettings, VARIABLES, type Vars } from "../src/settings.ts";

/** Stands in for the secret, which lives in `wrangler secret`, not in the file. */
const SECRET_PLACEHOLDER = "set-with-wrangler-secret-put";

/**
 * Throws the first {@link ConfigError} found in a parsed wrangler config; returns the names of
 * the variable sets it checked: with `env`, that environment's only (wrangler does not inherit
 * `vars`); without, the top level's and every environment's, since the hook cannot tell which
 * one a `wrangler deploy` is for.
 *
 * @example
 * checkWranglerConfig(parseToml(text)); // ["[vars]", "[env.staging.vars]"]
 */
export function checkWranglerConfig(config: Record<string, unknown>, { env }: { env?: string | undefined } = {}): string[] {
  const envs = Object.entries((config.env ?? {}) as Record<string, { vars?: unknown; build?: unknown }>);
  checkBuild("[build]", config.build);
  for (const [name, table] of envs) checkBuild(`[env.${name}.build]`, table?.build);
  if (env !== undefined && !envs.some(([name]) => name === env)) {
    throw new ConfigError(`[env.${env}]`, "", `no such environment in the file (it has ${envs.map(([name]) => name).join(", ") || "none"})`);
  }
  if (env === undefined && config.vars === undefined && envs.length > 0) {
    throw new ConfigError(
      "[vars]",
      "",
      "none at the top level, which a deploy without --env uses: with vars in environments only, check the one you deploy (CLOUDFLARE_ENV=<name>, or `npm run check-config -- --env <name>` as [env.<name>.build]'s command)",
    );
  }
  const sets = variableSets(config, env);
  for (const [where, vars] of sets) checkVars(where, vars ?? {});
  return sets.map(([where]) => where);
}

/**
 * The variable sets a deploy may use, by where they are, each with the routes deployed beside it:
 * with `env` (--env, CLOUDFLARE_ENV) that environment's alone, since a deploy uses no others;
 * without, `[vars]` and every environment's. Neither `vars` nor `routes` is inherited.
 */
function variableSets(config: Record<string, unknown>, env: string | undefined): Array<[where: string, vars: unknown, routes: unknown]> {
  const envs = Object.entries((config.env ?? {}) as Record<string, { vars?: unknown; routes?: unknown }>);
  const sets: Array<[string, unknown, unknown]> = env === undefined ? [["[vars]", config.vars, routesOf(config)]] : [];
  for (const [name, table] of envs) if (env === undefined || name === env) sets.push([`[env.${name}.vars]`, table?.vars, routesOf(table ?? {})]);
  return sets;
}

/** A table's routes: `routes`, or wrangler's singular `route`. */
function routesOf(table: { routes?: unknown; route?: unknown }): unknown {
  return table.routes ?? (table.route === undefined ? undefined : [table.route]);
}

/** The keys of wrangler's `build` table. */
const BUILD_KEYS = ["command", "cwd", "watch_dir"];

/**
 * Refuses a key wrangler's `[build]` does not take: in TOML every line below a `[table]` header
 * belongs to that table, so a top-level setting written there (`routes`, uncommented where an
 * example sat) is silently not the Worker's. wrangler only warns, and deploys without it.
 */
function checkBuild(where: string, build: unknown): void {
  if (typeof build !== "object" || build === null) return;
  for (const key of Object.keys(build)) {
    if (!BUILD_KEYS.includes(key)) {
      throw new ConfigError(
        where,
        "",
        `unknown key ${JSON.stringify(key)} (wrangler's build takes ${BUILD_KEYS.join(", ")}): a top-level setting belongs above the first [table]`,
      );
    }
  }
}

/** Hosts only this machine reaches, as {@link localForm} writes them. */
const LOOPBACK = /^(localhost|.*\.localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|::1?\/128)$/i;
/** Private and link-local hosts (RFC 1918, RFC 3927, RFC 4193, RFC 4291 §2.5.6): only their network reaches them. */
const PRIVATE = /^(10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|172\.(1[6-9]|2\d|3[01])\.\d+\.\d+|169\.254\.\d+\.\d+|f[cd][0-9a-f]*:.*|fe[89ab][0-9a-f]*:.*)$/i;

/**
 * What a valid file may still get wrong for a deploy: a Redis URL that only this machine or its
 * network reaches (the shipped file's, for `wrangler dev` against a local shim), or that another
 * network reads the token on (`http://`); and a Custom Domain without `ORIGIN_URL`, where the
 * Worker is the origin, so that every request it forwards would come back to it. Warnings, not
 * errors: `ORIGIN_URL` may be a secret, which the file does not show.
 *
 * @example
 * deployWarnings({ vars: { UPSTASH_REDIS_REST_URL: "http://127.0.0.1:8079" } });
 * // ["[vars] UPSTASH_REDIS_REST_URL points at 127.0.0.1, which only this machine reaches: …"]
 */
export function deployWarnings(config: Record<string, unknown>, { env }: { env?: string | undefined } = {}): string[] {
  return variableSets(config, env).flatMap(([where, vars, routes]) => {
    const warnings: string[] = [];
    const url = (vars as Record<string, unknown> | undefined)?.UPSTASH_REDIS_REST_URL;
    const parsed = typeof url === "string" && URL.canParse(url) ? new URL(url) : undefined;
    const hostname = parsed?.hostname ?? "";
    const host = localForm(hostname);
    const reach = LOOPBACK.test(host) ? "only this machine reaches" : PRIVATE.test(host) ? "only its private network reaches" : undefined;
    if (reach !== undefined) {
      warnings.push(`${where} UPSTASH_REDIS_REST_URL points at ${hostname}, which ${reach}: set your database's URL before \`wrangler deploy\``);
    } else if (parsed?.protocol === "http:") {
      warnings.push(`${where} UPSTASH_REDIS_REST_URL is http://, so the token crosses the network unencrypted: use https://`);
    }
    const customDomain = Array.isArray(routes) ? routes.find((route) => (route as { custom_domain?: unknown })?.custom_domain === true) : undefined;
    const origin = (vars as Record<string, unknown> | undefined)?.ORIGIN_URL;
    // Empty, it is unset, as the Worker reads it.
    if (customDomain && (typeof origin !== "string" || origin.trim() === "")) {
      const pattern = JSON.stringify((customDomain as { pattern?: unknown }).pattern);
      warnings.push(
        `${where} has no ORIGIN_URL, and the route ${pattern} is a Custom Domain, where the Worker is the origin: each request it forwards would come back to it; set ORIGIN_URL (unless it is a secret)`,
      );
    }
    return warnings;
  });
}

/**
 * A host as the patterns above read it: without a trailing dot; an IP address in the form the
 * limiter gives it (src/keys/ip.ts: an IPv4-mapped IPv6 address as its IPv4 one, IPv6 as a /128).
 */
function localForm(hostname: string): string {
  const host = hostname.replace(/\.$/, "");
  return clientIp(host.replace(/^\[(.*)\]$/, "$1"), 128) ?? host;
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
