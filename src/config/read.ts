/**
 * @module Small readers for plain data (JSON or TOML values): each returns a typed value or throws
 * a {@link ConfigError} naming the source, the path and the bad value (envoy's
 * `newRateLimitConfigError`). Everything in src/config is built from these.
 */
import { ConfigError, quote } from "../errors.ts";

export { quote };

/** Where a value sits: the variable (`ROUTES`) and the path inside it (`[2].rules[0]`). */
export interface At {
  source: string;
  path: string;
}

/** Throws the error for `at`. */
export function fail(at: At, detail: string): never {
  throw new ConfigError(at.source, at.path, detail);
}

/** `at` one step deeper: a key (`.rules`) or an index (`[0]`). */
export function child(at: At, step: string | number): At {
  if (typeof step === "number") return { source: at.source, path: `${at.path}[${step}]` };
  // A key that is no name (`""`, `a b`) is quoted, so that the path reads back as one.
  return { source: at.source, path: NAME_STEP.test(step) ? `${at.path}.${step}` : `${at.path}[${JSON.stringify(step)}]` };
}

/** A key written after a dot in a path. */
const NAME_STEP = /^[A-Za-z0-9_.-]+$/;

/**
 * Checks that `value` is a plain object whose keys are all in `allowed`, so that a typo is an
 * error instead of a silently ignored setting.
 */
export function readObject(value: unknown, allowed: readonly string[], at: At): Record<string, unknown> {
  // A TOML date is an object too, with no keys.
  if (typeof value !== "object" || value === null || Array.isArray(value) || value instanceof Date) fail(at, `expected an object, got ${quote(value)}`);
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) fail(at, `unknown key ${quote(key)} (expected one of ${allowed.join(", ")})`);
  }
  return object;
}

/** One of a fixed set of words. */
export function readChoice<T extends string>(value: unknown, choices: readonly T[], what: string, at: At): T {
  if (typeof value === "string" && (choices as readonly string[]).includes(value)) return value as T;
  return fail(at, `unknown ${what} ${quote(value)} (expected one of ${choices.join(", ")})`);
}

/** An integer in [min, max]; accepts a number or its decimal text (env vars are strings). */
export function readInteger(value: unknown, min: number, max: number, at: At): number {
  const number = typeof value === "string" && /^-?[0-9]+$/.test(value) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isInteger(number) || number < min || number > max) {
    fail(at, `invalid value ${quote(value)} (expected an integer from ${min} to ${max})`);
  }
  return number;
}

/** A non-empty string. */
export function readString(value: unknown, at: At): string {
  if (typeof value !== "string" || value.trim() === "") fail(at, `expected a non-empty string, got ${quote(value)}`);
  return value;
}

/** An absolute http(s) URL, returned as written. */
export function readUrl(value: unknown, at: At): string {
  const text = readString(value, at);
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) fail(at, `invalid URL ${quote(text)} (expected http:// or https://)`);
  return text;
}

/**
 * An origin (`ORIGIN_URL`, a route's `origin`): an http(s) URL of which forwarding keeps the
 * scheme, host, port and path prefix (src/proxy/forward.ts). A query, a fragment or credentials
 * would be dropped without a word, so they are refused; the user info is not repeated.
 *
 * @example
 * readOriginUrl("https://origin.example/api?k=1", at); // throws '… its query would be dropped)'
 */
export function readOriginUrl(value: unknown, at: At): string {
  const text = readUrl(value, at);
  const url = new URL(text);
  const dropped = url.username || url.password ? "user name and password" : url.search ? "query" : url.hash ? "fragment" : undefined;
  if (dropped === undefined) return text;
  url.username = "";
  url.password = "";
  fail(at, `invalid origin ${quote(url.href)} (an origin is a scheme, a host, a port and a path prefix; its ${dropped} would be dropped)`);
}

/**
 * A list given as JSON text (a secret, `--var`, `npm start`'s environment) or already structured
 * (wrangler passes `[vars]` arrays as arrays). `what` and `example` complete the messages.
 */
export function readJsonList(value: unknown, at: At, what: string, example: string): unknown[] {
  const list = typeof value === "string" ? parseJsonText(value, at, `a list such as ${example}`) : value;
  if (!Array.isArray(list)) fail(at, `expected a JSON list of ${what}, got ${quote(list)}`);
  return list;
}

/**
 * Parses JSON text, or fails naming the text (cut at 60 characters) and `expected`, what the text
 * should have looked like.
 *
 * @example
 * parseJsonText("{free: 1}", { source: "TIERS", path: "" }, 'an object such as {"free": "100/1h"}');
 * // throws: TIERS: invalid JSON "{free: 1}" (expected an object such as {"free": "100/1h"})
 */
export function parseJsonText(text: string, at: At, expected: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // The parser's own message differs between engines (Node, workerd); the value does not.
    const excerpt = text.length > 60 ? `${text.slice(0, 60)}…` : text;
    return fail(at, `invalid JSON ${quote(excerpt)} (expected ${expected})`);
  }
}
