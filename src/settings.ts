/**
 * @module `readSettings(env)`: every variable of README.md's configuration table, read once,
 * validated, defaulted. A bad value throws a {@link ConfigError} naming the variable, the path
 * and the value; nothing falls back silently. The token never appears in a message.
 */
import { firstRefused, inHeaderValue, trimHeaderValue } from "./headers/header-value.ts";
import { DEFAULTS, type Defaulted } from "./config/defaults.ts";
import { parseList } from "./config/lists.ts";
import { parseRoutes } from "./config/routes.ts";
import { parseTiers } from "./config/tiers.ts";
import { ConfigError } from "./errors.ts";
import { fail, parseJsonText, readChoice, readInteger, readOriginUrl, readString, readUrl, type At } from "./config/read.ts";
import { ALGORITHMS, parseRule } from "./config/rule.ts";
import { ANALYTICS_CLIENTS, type HeaderStyle, type Mode, MODES, type Settings } from "./config/types.ts";

export type { HeaderStyle, KeyPart, KeySource, ListEntry, Mode, RouteSettings, Settings } from "./config/types.ts";

/** Every variable ratewall reads; `npm run check-config` rejects others in `[vars]` as typos. */
export const VARIABLES = [
  "UPSTASH_REDIS_REST_URL",
  "UPSTASH_REDIS_REST_TOKEN",
  "RATE_LIMIT",
  "RATE_LIMIT_ALGORITHM",
  "ORIGIN_URL",
  "ROUTES",
  "FAILURE_MODE",
  "REDIS_TIMEOUT_MS",
  "KEY_PREFIX",
  "MODE",
  "RATE_LIMIT_HEADERS",
  "IPV6_SUBNET",
  "TRUSTED_PROXIES",
  "ORIGIN_TIMEOUT_MS",
  "ADMIN_TOKEN",
  "ANALYTICS_CLIENT",
  "ALLOW",
  "DENY",
  "TIERS",
] as const;

/** The variables as the Worker's `env` holds them (strings, or structured values from `[vars]`). */
export type Vars = Partial<Record<(typeof VARIABLES)[number], unknown>>;

/**
 * Refuses a name in `vars` that is one of {@link VARIABLES} misspelled (in another case, without
 * its `_MS` unit, or, for names of 6 letters or more, one edit away): given to the middleware, it would be ignored and its
 * default used. Only in vars written for ratewall: an object that also holds a name like none of
 * ratewall's, or a binding (not a string, number, list or plain object), is an app's whole
 * environment, whose other names (`ROUTER`, `ADMIN_TOKENS`) are not ratewall's business.
 *
 * @example
 * refuseMisspelt({ RATE_LIMT: "5/1m" }, "vars"); // throws: vars: unknown variable "RATE_LIMT" (did you mean RATE_LIMIT?)
 */
export function refuseMisspelt(vars: object, source: string): void {
  const known = new Set<string>(VARIABLES);
  let first: [string, string] | undefined;
  for (const [name, value] of Object.entries(vars)) {
    if (known.has(name)) continue;
    const meant = meantVariable(name);
    if (!meant || !isSettingValue(value)) return;
    first ??= [name, meant];
  }
  if (first) throw new ConfigError(source, "", `unknown variable ${JSON.stringify(first[0])} (did you mean ${first[1]}?)`);
}

/**
 * The variable `name` misspells, as {@link refuseMisspelt} reads one, or undefined: `name` is one
 * of {@link VARIABLES}, or like none of them.
 *
 * @example
 * meantVariable("RATE_LIMT"); // → "RATE_LIMIT"
 * meantVariable("HOME"); // → undefined
 */
export function meantVariable(name: string): string | undefined {
  if ((VARIABLES as readonly string[]).includes(name)) return undefined;
  // Compared without the unit suffix too: `REDIS_TIMEOUT` is the name typed from memory.
  return VARIABLES.find((variable) => editsApart(withoutUnit(name.toUpperCase()), withoutUnit(variable)) <= (variable.length < 6 ? 0 : 1));
}

/** A variable's name without its `_MS` unit. */
function withoutUnit(name: string): string {
  return name.replace(/_MS$/, "");
}

/** What a variable can hold (text, or a structured `[vars]` value), as a binding cannot. */
function isSettingValue(value: unknown): boolean {
  if (value === null || typeof value !== "object") return typeof value !== "function";
  return Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype;
}

/** Levenshtein distance: the fewest insertions, deletions and substitutions from `a` to `b`. */
function editsApart(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}

/** 32 characters from a random source (`openssl rand -hex 16` gives exactly that) put guessing out of reach. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

/**
 * Reads and validates the settings. Empty strings count as unset.
 *
 * @example
 * const settings = readSettings({ UPSTASH_REDIS_REST_URL: "https://x.upstash.io", UPSTASH_REDIS_REST_TOKEN: "…", RATE_LIMIT: "10/1s" });
 * settings.defaultRoute.rules; // [{ name: "default", algorithm: "fixed-window", limit: 10, windowMs: 1000 }]
 */
export function readSettings(env: Vars): Settings {
  try {
    return readEveryVariable(env);
  } catch (error) {
    throw withoutToken(withoutToken(error, env.UPSTASH_REDIS_REST_TOKEN), env.ADMIN_TOKEN);
  }
}

/**
 * `RATE_LIMIT` as given: text, or a rule written out. A rule written out arrives as JSON text
 * from `npm start`'s environment, `--var` and secrets, which carry only text; no rule text starts
 * with `{`.
 */
function readRateLimit(value: unknown, at: At): unknown {
  if (typeof value !== "string" || !value.trimStart().startsWith("{")) return value;
  return parseJsonText(value, at, 'a rule such as {"limit": 20, "window": "1s"}');
}

function readEveryVariable(env: Vars): Settings {
  const get = (name: (typeof VARIABLES)[number]) => (env[name] === "" ? undefined : env[name]);
  // An unset variable reads its default's text through the same validator as a set one.
  const read = (name: Defaulted) => get(name) ?? DEFAULTS[name];
  const at = (source: string): At => ({ source, path: "" });
  const algorithm = readChoice(read("RATE_LIMIT_ALGORITHM"), ALGORITHMS, "algorithm", at("RATE_LIMIT_ALGORITHM"));
  const mode: Mode = readChoice(read("MODE"), MODES, "mode", at("MODE"));
  const origin = get("ORIGIN_URL") === undefined ? undefined : readOriginUrl(get("ORIGIN_URL"), at("ORIGIN_URL"));
  const rateLimit = readRateLimit(read("RATE_LIMIT"), at("RATE_LIMIT"));
  const unlimited = rateLimit === "unlimited";
  const tiers = get("TIERS") === undefined ? {} : parseTiers(get("TIERS"), at("TIERS"), algorithm);
  return {
    redis: {
      url: readRedisUrl(get("UPSTASH_REDIS_REST_URL")),
      token: readToken(get("UPSTASH_REDIS_REST_TOKEN")),
      timeoutMs: readInteger(read("REDIS_TIMEOUT_MS"), 1, 60_000, at("REDIS_TIMEOUT_MS")),
    },
    defaultRoute: {
      pattern: "*/*",
      scope: "",
      ...(origin === undefined ? {} : { origin }),
      rules: unlimited ? [] : [parseRule(rateLimit, at("RATE_LIMIT"), algorithm, "default")],
      unlimited,
      key: { kind: "ip" },
      cost: 1,
      mode,
      count: "all",
      allow: [],
      deny: [],
    },
    routes: get("ROUTES") === undefined ? [] : parseRoutes(get("ROUTES"), { algorithm, mode, tiers, ...(origin === undefined ? {} : { origin }) }),
    tiers,
    failureMode: readChoice(read("FAILURE_MODE"), ["open", "closed"] as const, "failure mode", at("FAILURE_MODE")),
    keyPrefix: readKeyPrefix(read("KEY_PREFIX"), at("KEY_PREFIX")),
    headers: readChoice<HeaderStyle>(read("RATE_LIMIT_HEADERS"), ["draft", "legacy", "both", "none"], "header style", at("RATE_LIMIT_HEADERS")),
    ipv6Subnet: readInteger(read("IPV6_SUBNET"), 1, 128, at("IPV6_SUBNET")),
    trustedProxies: readInteger(read("TRUSTED_PROXIES"), 0, 10, at("TRUSTED_PROXIES")),
    originTimeoutMs: readInteger(read("ORIGIN_TIMEOUT_MS"), 1, 300_000, at("ORIGIN_TIMEOUT_MS")),
    ...(get("ADMIN_TOKEN") === undefined ? {} : { adminToken: readAdminToken(get("ADMIN_TOKEN")) }),
    analytics: {
      client: readChoice(read("ANALYTICS_CLIENT"), ANALYTICS_CLIENTS, "analytics client", at("ANALYTICS_CLIENT")),
    },
    allow: get("ALLOW") === undefined ? [] : parseList(get("ALLOW"), at("ALLOW")),
    deny: get("DENY") === undefined ? [] : parseList(get("DENY"), at("DENY")),
  };
}

const settingsByEnv = new WeakMap<object, Settings | ConfigError>();

/**
 * {@link readSettings}, once per `env` object: an isolate reuses the same env across requests.
 * A bad env is remembered too, so it costs one parse, not one per request.
 */
export function settingsFor(env: object): Settings {
  let settings = settingsByEnv.get(env);
  if (!settings) {
    try {
      settings = readSettings(env as Vars);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      settings = error;
    }
    settingsByEnv.set(env, settings);
  }
  if (settings instanceof ConfigError) throw settings;
  return settings;
}

/**
 * Not quoted when invalid: a token pasted into the URL variable would otherwise reach the logs.
 * Credentials in it are refused now: fetch refuses such a URL on every request, with a message
 * that quotes it, password included.
 */
function readRedisUrl(value: unknown): string {
  const at: At = { source: "UPSTASH_REDIS_REST_URL", path: "" };
  if (value === undefined) fail(at, "is required (on a Worker, in wrangler.toml's [vars]; on Node, in `rateLimit({ vars })`)");
  let url: string;
  try {
    url = readUrl(value, at);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return fail(at, "invalid URL (expected http:// or https://, e.g. https://eu1-example.upstash.io; the value is not repeated, in case it is the token)");
  }
  const { username, password } = new URL(url);
  if (username || password) {
    fail(
      at,
      "has a user name or password in it, which fetch refuses: put the token in UPSTASH_REDIS_REST_TOKEN (the value is not repeated, in case it holds a secret)",
    );
  }
  return url;
}

/**
 * A token pasted into another variable would be quoted by that variable's message, whole or in
 * pieces: a parser splits it (RATE_LIMIT at its `/`), cuts it (ROUTES quotes only the first 60
 * characters of bad JSON) or quotes a part, or names it in the path (a tier named with it). In
 * each quoted piece and in the path, every run of {@link MIN_MASKED_RUN} or more characters that
 * appears in the token is masked.
 */
function withoutToken(error: unknown, token: unknown): unknown {
  if (!(error instanceof ConfigError) || typeof token !== "string" || token.trim().length < 4) return error;
  const detail = error.message.slice(`${error.source}${error.path}: `.length);
  // Only quoted values: the message's own words stay readable whatever the token holds.
  const masked = detail.replace(/"(?:[^"\\]|\\.)*"/g, (quoted) => {
    let text: string;
    try {
      text = JSON.parse(quoted) as string;
    } catch {
      return maskRuns(quoted, token);
    }
    const without = maskRuns(text, token);
    return without === text ? quoted : JSON.stringify(without);
  });
  const path = maskRuns(error.path, token);
  return masked === detail && path === error.path ? error : new ConfigError(error.source, path, masked);
}

/** Shorter runs of a random token's characters turn up by chance, and give little of it away. */
const MIN_MASKED_RUN = 8;

/** `text` with each longest run that appears in `token` (at least {@link MIN_MASKED_RUN} long) replaced. */
function maskRuns(text: string, token: string): string {
  const min = Math.min(MIN_MASKED_RUN, token.length);
  let out = "";
  let start = 0;
  while (start < text.length) {
    let end = start;
    while (end < text.length && token.includes(text.slice(start, end + 1))) end++;
    if (end - start >= min) {
      out += "[redacted]";
      start = end;
    } else {
      out += text[start];
      start++;
    }
  }
  return out;
}

const NOT_REPEATED = "the value is not repeated: it is a secret";

/**
 * The token must be present and fit in an `Authorization` header, checked now: otherwise every
 * request fails (Node's fetch refuses the header with a message that quotes it, token included;
 * workerd sends other bytes than were set). Never quoted here: only the offending character's
 * code point and position are.
 */
function readToken(value: unknown): string {
  const at: At = { source: "UPSTASH_REDIS_REST_TOKEN", path: "" };
  if (value === undefined) fail(at, "is required (on a Worker, `wrangler secret put UPSTASH_REDIS_REST_TOKEN`; on Node, in `rateLimit({ vars })`)");
  if (typeof value !== "string" || value.trim() === "") fail(at, "expected a non-empty string");
  // A token pasted with a line break or spaces at its ends: fetch strips them from a header's
  // value (RFC 9110 §5.5), so the token sent, and scrubbed from the logs, is the trimmed one.
  const token = trimHeaderValue(value);
  const refused = firstRefused(token, inHeaderValue);
  if (refused) {
    const what = refused.code > 0xff ? "a character outside Latin-1" : "a control character";
    fail(at, `contains ${what} (${refused.where}), which an HTTP header cannot carry (${NOT_REPEATED})`);
  }
  return token;
}

/**
 * The admin API's bearer token. Short tokens can be guessed despite the per-address limit on
 * failed attempts; only the length is quoted, never the value (a secret).
 */
function readAdminToken(value: unknown): string {
  const at: At = { source: "ADMIN_TOKEN", path: "" };
  if (typeof value !== "string") fail(at, "expected a string (set it with `wrangler secret put ADMIN_TOKEN`)");
  // Dropped at the ends as for the Upstash token (a pasted line break); inside, the admin API reads
  // `Bearer <token>` up to the first space (src/admin/token.ts), so such a token could never match.
  const token = trimHeaderValue(value);
  const refused = firstRefused(token, (code) => code > 0x20 && code < 0x7f);
  if (refused) fail(at, `contains ${refused.where}, which a Bearer token cannot carry (use visible ASCII only, e.g. \`openssl rand -hex 32\`)`);
  if (token.length < MIN_ADMIN_TOKEN_LENGTH) fail(at, `must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (got ${token.length})`);
  return token;
}

function readKeyPrefix(value: unknown, at: At): string {
  const prefix = readString(value, at);
  // The prefix leads every key; a brace would change the Redis Cluster hash tag.
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(prefix)) fail(at, `invalid key prefix ${JSON.stringify(prefix)} (letters, digits, "_", ".", ":", "-"; at most 64)`);
  return prefix;
}
