/**
 * @module The value of one key source in a request: a header, a cookie, a query parameter or a
 * `cf` field, to be hashed by identify.ts; `undefined` when the request does not carry one. Values
 * are read as the origin reads them, so that one client has one key however it spells its value:
 * a cookie unquoted and percent-decoded as cookie libraries do, a query parameter as the URL
 * decodes it (and none when it is given more than once).
 */
import type { KeyPart, KeySource } from "../config/types.ts";

/** What a request offers beyond its headers: its URL and Cloudflare's `request.cf` fields. */
export interface RequestFacts {
  url?: string;
  cf?: { asn?: number; country?: string };
  /**
   * The client's address as the app knows it (the middleware's `clientAddress` option: the
   * socket's peer on Node), asked only when a key needs the address. Given, what it returns is
   * the address, `undefined` included: `CF-Connecting-IP` and `X-Forwarded-For` are not read,
   * since off Cloudflare a client writes them itself.
   */
  address?: () => string | undefined;
}

/**
 * The value of a non-address key part, or `undefined` when missing or empty.
 *
 * @example
 * readKeyPart({ kind: "cookie", name: "sid" }, new Headers({ cookie: "a=1; sid=abc" }), {}); // "abc"
 */
export function readKeyPart(part: Exclude<KeyPart, { kind: "ip" }>, headers: Headers, request: RequestFacts): string | undefined {
  switch (part.kind) {
    case "header":
      return headerValue(part.name, headers.get(part.name));
    case "cookie":
      return readCookie(headers.get("cookie"), part.name);
    case "query":
      return readQuery(request.url, part.name);
    case "cf":
      return part.field === "asn" ? readAsn(request.cf?.asn) : readCountry(request.cf?.country);
  }
}

/**
 * A raw value, given by an operator for a client of `source` (the admin API's `key=`), read as
 * a request's value of that source is: an Authorization header's scheme, a cookie's quotes and
 * escapes (below). A query or `cf` value, and a composite's, are taken as given.
 *
 * @example
 * asKeyValue({ kind: "cookie", name: "sid" }, '"%61bc"'); // "abc"
 */
export function asKeyValue(source: KeySource, raw: string): string {
  if (source.kind === "header") {
    // A request's header value never starts or ends with whitespace (the Fetch standard strips
    // it, as HTTP parsers drop it): a pasted key with a trailing space or newline is the same key.
    const value = raw.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
    return headerValue(source.name, value) ?? value;
  }
  return source.kind === "cookie" ? cookieValue(raw) : raw;
}

/**
 * A header's value as a key, or `undefined` when missing or empty. `Authorization` is the one
 * header read as its grammar says (RFC 9110 §11.4, `auth-scheme [ 1*SP credentials ]`): the
 * scheme is case-insensitive (§11.1) and the spaces after it are one separator, so `Bearer abc`,
 * `bearer abc` and `Bearer  abc` are one client, as the origin sees one. The scheme is written as
 * most clients send it (`Bearer`, `Basic`: first letter upper case), so that the common spelling
 * hashes as it did before this reading, and entries stored for it still apply. The credentials
 * are kept as sent (a token68 is case-sensitive), Basic ones re-encoded in canonical base64; a Bearer
 * or Basic one with a space or a comma in it is none, as is a value with `Bearer ` past its start or
 * with a control or non-ASCII character.
 * Every other header is kept as sent.
 *
 * @example
 * headerValue("authorization", "BEARER  abc"); // "Bearer abc"
 */
function headerValue(name: string, value: string | null): string | undefined {
  if (!value) return undefined;
  if (name !== "authorization") return value;
  // No credential holds a control or non-ASCII character, and Python's split() reads \v, \f or
  // U+00A0 as a space: `Bearer\vabc` is `abc` to a Django origin.
  if (NOT_VISIBLE_ASCII.test(value)) return undefined;
  // Laravel's bearerToken() reads what follows the last `Bearer `, wherever it is, so a value with
  // one past its start is read there by some origins and from its start by others.
  if (LATER_BEARER.test(value)) return undefined;
  const scheme = AUTH_SCHEME.exec(value);
  if (!scheme) return value;
  const word = scheme[1]!;
  const written = `${word[0]!.toUpperCase()}${word.slice(1).toLowerCase()}`;
  const credentials = value.slice(scheme[0].length);
  // Bearer (RFC 6750 §2.1) and Basic (RFC 7617 §2) carry one token, with no space or comma.
  // Origins read more than that differently (`split(" ")[1]` the first word, Laravel's
  // bearerToken() what follows the last `Bearer ` up to a comma), so no one part of it is the
  // client: it counts as no key, and junk added to a real token is not a new client each time.
  if ((written === "Bearer" || written === "Basic") && SPACE_OR_COMMA.test(credentials)) return undefined;
  if (written !== "Basic") return `${written} ${credentials}`;
  // Origins decode Basic leniently (npm basic-auth's Buffer.from, Python's b64decode): padding
  // left off or added, other trailing bits, characters outside base64 are one user's spellings.
  // Read as its canonical base64, a credential is one client; one strict decoding (atob, WHATWG's
  // forgiving-base64) refuses is none. A canonical one reads as before, so stored entries apply.
  try {
    return `Basic ${btoa(atob(credentials))}`;
  } catch {
    return undefined;
  }
}

/** An auth-scheme (a token, RFC 9110 §11.1) and the spaces or tabs that end it (origins that split on whitespace read a tab as one). */
const AUTH_SCHEME = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+)[ \t]+/;
/** A character other than a space, a tab or visible ASCII. */
const NOT_VISIBLE_ASCII = /[^\t\x20-\x7e]/;
/** `Bearer ` anywhere but at the start, in any case. */
const LATER_BEARER = /.bearer /i;
const SPACE_OR_COMMA = /[\s,]/;

/**
 * RFC 6265 §5.4: `name=value` pairs separated by `;`. The pair with the name counts, its value
 * read as the origin's cookie library reads it (npm `cookie`, Rack): unquoted, then
 * percent-decoded once. Kept as sent, `abc`, `%61bc` and `"abc"` would be three keys for the one
 * session the origin sees. A value read two ways is none, as a query key given twice is: the name
 * given twice with different values (npm `cookie`, Rack, Go and PHP read the first; Django and
 * Starlette the last, so `session=junk1; session=real` would rotate), or a quoted value with a
 * `\` (Python's cookie parser reads `"\162eal"` as `real`; the others keep the escape).
 *
 * workerd joins two Cookie headers with ", " (RFC 9110 §5.3), and a cookie-value may not hold a
 * comma (RFC 6265 §4.1.1): a value ends at a comma, and a pair after one is read when no
 * `;`-separated pair has the name. Only then: in `x=1,session=junk; session=real` the origin's
 * library reads `x` and `session=real`, and keying on `junk` would let a client rotate it.
 */
function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  let found: string | undefined;
  let afterComma: string | undefined;
  for (const pair of header.split(";")) {
    const comma = pair.indexOf(",");
    const value = pairValue(comma < 0 ? pair : pair.slice(0, comma), name);
    if (value === undefined) {
      if (comma >= 0) afterComma ??= crumbValue(pair.slice(comma + 1), name);
    } else if (found !== undefined && found !== value) return undefined;
    else found = value;
  }
  const raw = found ?? afterComma;
  return raw === undefined || (raw[0] === '"' && raw.includes("\\")) ? undefined : cookieValue(raw) || undefined;
}

/** The value of the first comma-separated `name=value` with the name, or `undefined`. */
function crumbValue(crumbs: string, name: string): string | undefined {
  for (const crumb of crumbs.split(",")) {
    const value = pairValue(crumb, name);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** The value of `name=value` when the name is `name`, trimmed; otherwise `undefined`. */
function pairValue(pair: string, name: string): string | undefined {
  const equals = pair.indexOf("=");
  return equals >= 0 && pair.slice(0, equals).trim() === name ? pair.slice(equals + 1).trim() : undefined;
}

/**
 * A cookie's value as its origin's library reads it: RFC 6265 §4.1.1 allows a cookie-value
 * wrapped in DQUOTEs (the quotes are not part of it), and libraries percent-decode it once.
 *
 * @example
 * cookieValue('"%61bc"'); // "abc"
 */
function cookieValue(raw: string): string {
  const value = raw.length >= 2 && raw.charCodeAt(0) === 0x22 && raw.charCodeAt(raw.length - 1) === 0x22 ? raw.slice(1, -1) : raw;
  if (!value.includes("%")) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    // A malformed escape (`%zz`, a lone UTF-8 byte): the value as written, as npm `cookie` keeps it.
    return value;
  }
}

/**
 * The parameter's one value (WHATWG URL decoding). Given more than once it is missing: origins
 * disagree on which value counts (PHP, Rails and Django take the last), so keying on the first
 * would let a client rotate junk first values past its limit while the origin reads the real one.
 * A name PHP reads as this one (`api.key` for `api_key`) counts as giving it again, and so does a
 * `;`-separated piece that names it, or a `;` in its value: Rack before 3 and http4s split a query
 * at `;` as well as `&`, and would read another value.
 */
function readQuery(url: string | undefined, name: string): string | undefined {
  if (!url) return undefined;
  let query: URL;
  try {
    query = new URL(url);
  } catch {
    return undefined;
  }
  const value = onlyValue(query.searchParams, name);
  if (value === undefined || !query.search.includes(";")) return value;
  // Split at `;` too, read by the same parser: where that reading differs, origins disagree.
  return onlyValue(new URLSearchParams(query.search.replace(SEMICOLONS, "&")), name) === value ? value : undefined;
}

/** The one non-empty value of the parameter `name` or of a name PHP reads as it; none if given twice. */
function onlyValue(params: URLSearchParams, name: string): string | undefined {
  const php = phpNames(name);
  const found: string[] = [];
  params.forEach((value, given) => {
    if (given === name || phpNames(given).some((form) => php.includes(form))) found.push(value);
  });
  return found.length === 1 && found[0] ? found[0] : undefined;
}

/**
 * A query parameter's name as PHP registers it (main/php_variables.c): up to a NUL (PHP reads it
 * as a C string), leading spaces dropped, `.` and spaces before any `[` as `_`, an array
 * (`api_key[]`, `api_key[0]`) under its base name, and a `[` that no `]` closes as `_`. What
 * follows that `[` is kept by PHP 7 and mangled as well by PHP 8 (bug #78236): both are given.
 *
 * @example
 * phpNames(" api.key"); // ["api_key", "api_key"]
 * phpNames("x[api.key"); // ["x_api.key", "x_api_key"]
 * phpNames("api_key[0]"); // ["api_key", "api_key"]
 */
function phpNames(name: string): [string, string] {
  const nul = name.indexOf("\0");
  const trimmed = (nul < 0 ? name : name.slice(0, nul)).replace(LEADING_SPACES, "");
  const open = trimmed.indexOf("[");
  if (open < 0) {
    const mangled = trimmed.replace(PHP_MANGLED, "_");
    return [mangled, mangled];
  }
  const head = trimmed.slice(0, open).replace(PHP_MANGLED, "_");
  if (trimmed.indexOf("]", open) > 0) return [head, head];
  const rest = trimmed.slice(open + 1);
  return [`${head}_${rest}`, `${head}_${rest.replace(PHP8_MANGLED, "_")}`];
}

const LEADING_SPACES = /^ +/;
const PHP_MANGLED = /[. ]/g;
const PHP8_MANGLED = /[. []/g;
const SEMICOLONS = /;/g;

function readAsn(asn: number | undefined): string | undefined {
  return Number.isInteger(asn) && asn! > 0 ? String(asn) : undefined;
}

/** Two letters or digits (`T1`): anything else is not what Cloudflare sends, so not a key. */
function readCountry(country: string | undefined): string | undefined {
  const code = country?.toUpperCase();
  return code && /^[A-Z0-9]{2}$/.test(code) ? code : undefined;
}
