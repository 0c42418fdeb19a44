/**
 * @module The request's URL as the route matcher sees it. Every spelling that an origin may read
 * as the same resource must match the same route, or a client could move itself to a
 * less-limited route: `/V1/../login`, `/%6Cogin`, `/api%2Flogin`, `//login`, `\login`,
 * `EXAMPLE.com.:443` all normalize to what they mean.
 */

/** A host's trailing dots, which name the same host (RFC 1034 §3.1). */
export const TRAILING_DOTS = /\.+$/;
const BACKSLASHES = /\\/g;
const ESCAPES = /(?:%[0-9a-f]{2})+/gi;
const UTF8 = new TextDecoder();
/** Any character outside ASCII (U+0000 to U+007F). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII starts at U+0000.
export const NON_ASCII = /[^\u0000-\u007f]/;

/** What a route pattern is matched against. */
export interface MatchTarget {
  scheme: "http" | "https";
  /** Lowercase, without port or trailing dot. */
  host: string;
  /**
   * Without its segments' `;parameters` (as sent, before decoding, as Tomcat, Jetty and Spring
   * drop them: `/login;jsessionid=1` is `/login` there), decoded once, slashes unified, dot
   * segments resolved, lowercase. Never has a query.
   */
  path: string;
  /**
   * Only where a dot segment is in play: the path as other origins read it. nginx keeps `;…`;
   * most routers also keep `%2F` inside one segment, so the dot segments that decoding made stay
   * names. Where `/a/..;/b` or `/a/x%2F..%2F..%2Fb` meet another route under these, no one route
   * is the request's.
   */
  otherPaths?: string[];
  /**
   * Only where composing changed a non-ASCII path: each reading (`path`, then `otherPaths` in
   * order) that composing changed, beside the same reading with the code points as sent (decoded,
   * lowercase, resolved). An origin that routes by the bytes sent serves `/search` + U+0307 under
   * `/search`, where the composed `/searcḣ` starts with no `/search`; where the two readings meet
   * different routes, no one route is the request's.
   */
  sentPaths?: Array<[composed: string, sent: string]>;
}

/** A segment's `;parameters` (RFC 2396 §3.3), up to the next `/`. */
export const SEGMENT_PARAMETERS = /;[^/]*/g;

/**
 * Whether a path (with its query, as a request's URL gives it) would climb above its first
 * segment as some origin reads it: with its encoded slashes decoded (`%2F`, and `%5C`, a separator
 * to Windows servers) and dots too, and with each segment's `;` parameters dropped, as Tomcat,
 * Jetty and Spring do (before decoding or after). Under an origin's path `/base` (src/proxy), `/..%2Fadmin` and
 * `/..;/admin` are `/base/../admin`. The runtime has already resolved every dot segment written
 * with plain slashes (WHATWG URL, path state), so only these can climb.
 *
 * @example
 * climbsAboveRoot("/..;/admin?x=1"); // → true
 * climbsAboveRoot("/a/..%2Fb"); // → false: it is /b
 */
export function climbsAboveRoot(pathAndQuery: string): boolean {
  if (!MAY_CLIMB.test(pathAndQuery)) return false;
  const query = pathAndQuery.indexOf("?");
  const path = query < 0 ? pathAndQuery : pathAndQuery.slice(0, query);
  if (!MAY_CLIMB.test(path)) return false;
  const withoutParameters = (text: string) => text.replace(SEGMENT_PARAMETERS, "");
  return escapes(separatorsDecoded(withoutParameters(path))) || escapes(withoutParameters(separatorsDecoded(path)));
}

/** A path some origin could read as climbing: one with an encoded separator or a `;`. */
const MAY_CLIMB = /;|%2f|%5c/i;
/** Only what can make a dot segment decoded: slashes, backslashes (as separators) and dots. */
const separatorsDecoded = (path: string) => path.replace(/%2f|%5c/gi, "/").replace(/%2e/gi, ".");

/** Whether the `..` segments of `path` outnumber, at some point, the segments before them. */
function escapes(path: string): boolean {
  let depth = 0;
  for (const segment of path.split("/")) {
    if (segment === "..") {
      if (--depth < 0) return true;
    } else if (segment !== "" && segment !== ".") depth++;
  }
  return false;
}

/** A path ending in a `.` or `..` segment. */
const DOT_END = /\/\.\.?$/;
/** A `.` or `..` segment in a decoded path. */
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

/**
 * Normalizes a request URL for matching (not for forwarding: the origin gets the URL as sent).
 *
 * @example
 * normalizeForMatch(new URL("https://API.example.com.:8443/v1/%2E%2E/Login%2Fx;v=2"));
 * // { scheme: "https", host: "api.example.com", path: "/login/x" }
 */
export function normalizeForMatch(url: URL): MatchTarget {
  const { pathname } = url;
  const composed = readPath(pathname, decodePath);
  const target: MatchTarget = {
    scheme: url.protocol === "http:" ? "http" : "https",
    host: url.hostname.toLowerCase().replace(TRAILING_DOTS, ""),
    path: composed.path,
  };
  if (composed.others) target.otherPaths = composed.others;
  const readings = [composed.path, ...(composed.others ?? [])];
  if (readings.some((path) => NON_ASCII.test(path))) {
    const sent = readPath(pathname, decodeAsSent, composed.others !== undefined);
    const sentReadings = [sent.path, ...(sent.others ?? [])];
    const changed = readings.flatMap((path, i): Array<[string, string]> => (path === sentReadings[i] ? [] : [[path, sentReadings[i]!]]));
    if (changed.length > 0) target.sentPaths = changed;
  }
  return target;
}

/**
 * A path's readings, decoded by `decode`: the one matched, and where a dot segment is in play
 * (or `withOthers` says so), the others' (MatchTarget.otherPaths).
 */
function readPath(pathname: string, decode: (path: string) => string, withOthers?: boolean): { path: string; others?: string[] } {
  const withParameters = pathname.includes(";");
  // Tomcat drops the parameters from the path as sent, before decoding: a `%2F` inside one goes
  // with it, and a `%3B` separates nothing.
  const decoded = decode(withParameters ? pathname.replace(SEGMENT_PARAMETERS, "") : pathname);
  const path = resolveSegments(decoded);
  // The URL parser has resolved every dot segment the client wrote, `%2E` ones too (WHATWG URL,
  // "path state"), so one here was made by decoding a `%2F` or `%5C`, or by dropping a `;…`.
  // Without a `;` nginx's reading is the path itself; with one, it keeps the parameters.
  const kept = withParameters ? decode(pathname) : decoded;
  if (!(withOthers ?? (DOT_SEGMENT.test(decoded) || DOT_SEGMENT.test(kept)))) return { path };
  return { path, others: withParameters ? [resolveSegments(kept), resolveSegments(kept, true)] : [resolveSegments(kept, true)] };
}

/**
 * A decoded path (`decodePath`) with empty and dot segments resolved, or with dot segments kept
 * as names (`keepDots`); a trailing slash kept.
 */
export function resolveSegments(decoded: string, keepDots = false): string {
  const segments: string[] = [];
  for (const segment of decoded.split("/").slice(1)) {
    if (segment === "" || (segment === "." && !keepDots)) continue;
    if (segment === ".." && !keepDots) segments.pop();
    else segments.push(segment);
  }
  // Keep a trailing slash: a prefix `/a/*` meets `/a/` and not `/a` (an exact path meets both,
  // match.ts). A last segment `.` or `..` leaves one too (RFC 3986 §5.2.4: `/a/b/..` is `/a/`).
  const ended = decoded.endsWith("/") || (!keepDots && DOT_END.test(decoded));
  const trailing = decoded.length > 1 && ended && segments.length > 0 ? "/" : "";
  return `/${segments.join("/")}${trailing}`;
}

/**
 * A path decoded once, `\` as `/`, lowercase, in Unicode's composed form (NFC); segments not yet
 * resolved. Route patterns' paths are read with it too (pattern.ts), so `/caf%C3%A9`, `/café` and
 * `/cafe%CC%81` are one path on both sides.
 *
 * @example
 * decodePath("/CAF%C3%89/a%5Cb"); // → "/café/a/b"
 */
export function decodePath(pathname: string): string {
  const path = decodeAsSent(pathname);
  // `é` may come as one code point or as `e` and a combining accent (macOS file names, some
  // clients), which Unicode defines as the same text (UAX #15, canonical equivalence): read both
  // in the composed form. An ASCII path, nearly every one, is in every normal form already.
  return NON_ASCII.test(path) ? path.normalize("NFC") : path;
}

/** {@link decodePath} without composing: the code points the client sent, decoded and lowercase. */
function decodeAsSent(pathname: string): string {
  // Decoding once matches what origins do; %2F and %5C then become separators, as many servers
  // (and every path-joining framework) end up treating them.
  const path = safeDecode(pathname).replace(BACKSLASHES, "/").toLowerCase();
  // `toLowerCase` gives a Σ that ends a word the final `ς` (Unicode's Final_Sigma), so a prefix
  // ending in Σ would lose it on a longer path; case folding reads both sigmas as `σ` (CaseFolding.txt).
  return NON_ASCII.test(path) ? path.replace(FINAL_SIGMA, "σ") : path;
}

const FINAL_SIGMA = /ς/g;

/**
 * Reads prefixes on `sent`, a path as sent (MatchTarget.sentPaths): whether it starts, at a
 * boundary between the code points it has, with text canonically equivalent to a composed
 * `prefix`, whose decomposed (NFD) length is `nfdLength`. `/search` + U+0307 starts with
 * `/search` there, and `/cafe` + U+0301 + `/x` with `/café`.
 *
 * @example
 * sentPrefixes("/search\u0307")("/search", 7); // → true
 */
export function sentPrefixes(sent: string): (prefix: string, nfdLength: number) => boolean {
  // Equivalent texts have one decomposed form, and its length is the sum of each code point's
  // decomposition (reordering marks keeps it), which grows with every code point: so one boundary
  // at most can hold the prefix, found without composing, then checked by composing once. Each
  // code point is decomposed once per request, and only as far as a prefix reaches.
  const ends = [0];
  const nfdLengths = [0];
  return (prefix, nfdLength) => {
    while (nfdLengths[nfdLengths.length - 1]! < nfdLength && ends[ends.length - 1]! < sent.length) {
      const at = ends[ends.length - 1]!;
      const codePoint = sent.codePointAt(at)!;
      const end = at + (codePoint > 0xffff ? 2 : 1);
      ends.push(end);
      nfdLengths.push(nfdLengths[nfdLengths.length - 1]! + (codePoint < 0x80 ? 1 : sent.slice(at, end).normalize("NFD").length));
    }
    const boundary = nfdLengths.indexOf(nfdLength);
    return boundary >= 0 && sent.slice(0, ends[boundary]).normalize("NFC") === prefix;
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // A malformed escape (`%zz`) stays as written; each run of valid ones is decoded as UTF-8, a
    // byte that is not as U+FFFD (as lenient origins do), so `/café/%zz` still starts with `/café`.
    return text.replace(ESCAPES, (run) => UTF8.decode(Uint8Array.from(run.slice(1).split("%"), (hex) => Number.parseInt(hex, 16))));
  }
}
