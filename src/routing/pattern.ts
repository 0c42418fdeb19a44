/**
 * @module Route patterns in wrangler's route syntax (`api.example.com/v1/*`,
 * `*.example.com/login*`): a `*` may open the host and close the path, nowhere else, as in
 * Cloudflare's "Routes and domains" rules, so that patterns can be copied from `routes`. The path
 * is read as a request's is (normalize.ts): `/café`, `/caf%C3%A9` and `/CAF%C3%89` are one path.
 */
import { decodePath, NON_ASCII, resolveSegments, TRAILING_DOTS } from "./normalize.ts";

/** A compiled pattern. Its path is decoded and lowercase, as a request's (see normalize.ts). */
export interface Pattern {
  /** As written, for messages and logs. */
  source: string;
  /** `undefined` matches both schemes. */
  scheme?: "http" | "https";
  /** `exact`: the host itself; `suffix`: any host ending with `host` (`*` → empty suffix). */
  hostKind: "exact" | "suffix";
  host: string;
  /**
   * `exact`: the path itself, with or without one trailing slash (kept without it); `prefix`: any
   * path starting with `path`.
   */
  pathKind: "exact" | "prefix";
  path: string;
}

const SCHEME = /^(https?):\/\//;
const ANY_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//;
const HOST = /^[a-z0-9.-]*$/;
const NON_ASCII_ALL = new RegExp(NON_ASCII.source, "g");
const IP_HOST = "an IP address is not a route host (routes are on your zone's host names)";
/** What the hint for an unreachable path escapes, so that it reads back as the same path. */
const HINT_ESCAPES = /[%?#*]/g;

/**
 * Compiles one pattern; a string explains why it is not one.
 *
 * @example
 * parsePattern("*.example.com/login*");
 * // { hostKind: "suffix", host: ".example.com", pathKind: "prefix", path: "/login", … }
 */
export function parsePattern(source: string): Pattern | string {
  const trimmed = source.trim();
  let rest = trimmed.toLowerCase();
  const scheme = SCHEME.exec(rest)?.[1] as Pattern["scheme"];
  const other = scheme ? undefined : ANY_SCHEME.exec(rest)?.[0];
  if (other) return `only http:// and https:// requests reach a Worker (got "${other}")`;
  if (scheme) rest = rest.slice(scheme.length + 3);
  const slash = rest.indexOf("/");
  if (slash < 0) return "missing path (write host/path, e.g. example.com/*)";
  let host = rest.slice(0, slash);
  let path = rest.slice(slash);
  if (host === "") return "missing host (use * for any host, e.g. */api/*)";
  const hostKind = host.startsWith("*") ? "suffix" : "exact";
  if (hostKind === "suffix") host = host.slice(1);
  if (host.startsWith("[")) return IP_HOST;
  if (host.includes(":")) return "ports are not part of a route pattern";
  if (NON_ASCII.test(host)) {
    // Read from the pattern as written: lowercase first, and a final Σ becomes ς where IDNA gives σ.
    const written = (scheme ? trimmed.slice(scheme.length + 3) : trimmed).split("/", 1)[0]!.slice(hostKind === "suffix" ? 1 : 0);
    const ascii = asciiHost(written);
    if (ascii === undefined) return `the host "${written}" is not a host name (letters of any script, digits, dots and dashes)`;
    if (hostKind === "suffix" && ascii.startsWith("xn--")) {
      return `a * before a label in another script than ASCII must be followed by a dot (*.${written}): its ASCII form (IDNA) is not a suffix of the longer label's`;
    }
    host = ascii;
  }
  // A fully qualified name's trailing dot names the same host (RFC 1034 §3.1); requests lose it too.
  host = host.replace(TRAILING_DOTS, "");
  if (host.includes("..")) return "a host has no empty labels (two dots in a row)";
  // URLs read a host whose last label is a number, decimal or 0x hex, as an IPv4 address (WHATWG
  // URL, "ends in a number checker"): a request carries it as one or is refused before any Worker.
  if (/(^|\.)(\d+|0x[0-9a-f]*)$/.test(host)) return IP_HOST;
  if (!HOST.test(host)) return "a * may only open the host, and a host holds letters, digits, dots and dashes";
  const pathKind = path.endsWith("*") ? "prefix" : "exact";
  if (pathKind === "prefix") path = path.slice(0, -1);
  if (path.includes("?")) return "route patterns do not match query strings";
  if (path.includes("#")) return "route patterns do not match fragments (write a # of the path as %23)";
  if (path.includes("*")) return "a * may only close the path";
  // Requests are matched without their segments' parameters (normalize.ts), so none meets one.
  if (path.includes(";")) return "a ; starts a segment's parameters, which requests are matched without (write a literal ; of the path as %3B)";
  // A request's path is decoded once before matching (normalize.ts), so the pattern's is too.
  if (!decodes(path)) return "the path has a % that starts no escape of UTF-8 text (write a literal % as %25)";
  path = decodePath(path);
  const unreachable = unnormalizedSegment(path, pathKind);
  if (unreachable !== undefined) {
    const resolved = resolveSegments(path).replace(HINT_ESCAPES, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    return `the path has ${unreachable}, which no request has once its path is normalized (write "${resolved}${pathKind === "prefix" ? "*" : ""}")`;
  }
  // Origins serve `/login/` as `/login` (Express, Rails, most frameworks), so an exact path is
  // matched with or without its trailing slash; one left out would be a way around the route.
  if (pathKind === "exact" && path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  return { source, ...(scheme ? { scheme } : {}), hostKind, host, pathKind, path };
}

/** Whether decoding once leaves no malformed escape: such a % is likely meant as a literal one. */
function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The first segment of a pattern's path that normalization removes from every request's path
 * (normalize.ts), so that the pattern could never match: an empty segment (a trailing slash
 * aside), `.` or `..`. A prefix's last segment is cut anywhere (`/.*` matches `/.well-known`).
 */
function unnormalizedSegment(path: string, pathKind: Pattern["pathKind"]): string | undefined {
  const segments = path.split("/").slice(1);
  for (const [i, segment] of segments.entries()) {
    const last = i === segments.length - 1;
    if (segment === "" && !last) return "an empty segment";
    if ((segment === "." || segment === "..") && !(last && pathKind === "prefix")) return `a "${segment}" segment`;
  }
  return undefined;
}

/**
 * A host with letters of other scripts than ASCII in the ASCII form requests carry it in
 * (`bücher.example` → `xn--bcher-kva.example`), by the URL parser's IDNA processing (WHATWG URL,
 * "host parsing", UTS #46), the same that gave each request its host; a leading dot is kept.
 * `undefined` when it is no host name: the parser refuses it, or its ASCII characters are more than
 * letters, digits, dots and dashes, which the parser would read as URL syntax (`ü@evil.example`
 * is a user name and a host) or decode (`%41`) before checking the host.
 */
function asciiHost(host: string): string | undefined {
  if (!HOST.test(host.replace(NON_ASCII_ALL, "").toLowerCase())) return undefined;
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * How specific a pattern is, compared lexicographically (bigger wins): an exact host, then the
 * longer literal host, then the longer literal path, then an exact path over a prefix. An exact
 * path counts with its trailing slash, which it also matches (`/api` stands for `/api/` too, and
 * beats the prefix `/api/*` there).
 */
export function specificity(pattern: Pattern): [number, number, number, number, number] {
  const exact = pattern.pathKind === "exact";
  const pathLength = pattern.path.length + (exact && pattern.path !== "/" ? 1 : 0);
  return [pattern.hostKind === "exact" ? 1 : 0, pattern.host.length, pathLength, exact ? 1 : 0, pattern.scheme ? 1 : 0];
}
