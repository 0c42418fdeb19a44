/**
 * @module Route lookup: patterns compiled once, one lookup per request.
 *
 * Precedence when several routes match (the most specific wins, as Cloudflare picks among
 * overlapping routes):
 * 1. an exact host beats a wildcard host; among wildcard hosts the longer literal suffix wins;
 * 2. then the longer literal path (the part before the closing `*`);
 * 3. then an exact path beats a prefix of the same length, and a pattern with a scheme beats one
 *    without;
 * 4. then a route that names its `methods` beats one that does not;
 * 5. then declaration order in `ROUTES`.
 *
 * A route with `methods` matches only requests with one of them (compared in uppercase, so
 * `patch` cannot slip past a `PATCH` route); any other request falls through to the next route in
 * that order, as if the route were not there. A route that lists `GET` also matches `HEAD`: HEAD
 * is GET without the content (RFC 9110 §9.3.2), and origins run the GET handler for it, so a
 * client refused on GET must not get a fresh budget by asking with HEAD. A route that lists HEAD
 * matches it as any method; the precedence above is otherwise unchanged.
 */
import { normalizeForMatch, sentPrefixes, type MatchTarget } from "./normalize.ts";
import { type Pattern, parsePattern, specificity } from "./pattern.ts";

/**
 * Finds the route for a URL and method, or `undefined` when none matches. Without a method,
 * routes' `methods` are not checked (the stricter reading: such a route applies to every method).
 */
export type RouteMatcher<T> = (url: URL, method?: string) => T | undefined;

/**
 * Compiles routes into a matcher. Throws on a bad pattern: validate with `parsePattern` first
 * (settings do) to get a proper `ConfigError`.
 *
 * @example
 * const match = compileRoutes([{ pattern: "api.example.com/v1/*", id: "v1" }]);
 * match(new URL("https://api.example.com/v1/users"), "GET")?.id; // "v1"
 */
export function compileRoutes<T extends { pattern: string; methods?: readonly string[] }>(routes: readonly T[]): RouteMatcher<T> {
  const compiled = routes
    .map((route, order) => {
      const pattern = compile(route.pattern);
      return { route, order, pattern, methods: withHead(route.methods), nfdLength: pattern.path.normalize("NFD").length };
    })
    .sort((a, b) => compareSpecificity(b.pattern, a.pattern) || Number(!!b.methods) - Number(!!a.methods) || a.order - b.order);
  return function matchRoute(url, method) {
    const target = normalizeForMatch(url);
    const upper = method?.toUpperCase();
    const find = (path: string, sent?: SentPrefix) =>
      compiled.find(
        (entry) =>
          (!upper || !entry.methods || entry.methods.includes(upper)) &&
          matches(entry.pattern, target.scheme, target.host, path, sent && ((prefix) => sent(prefix, entry.nfdLength))),
      )?.route;
    const route = find(target.path);
    // nginx decodes `%2F` and resolves the `..` it makes; Hono, Express and Rails keep it inside
    // one segment; Tomcat drops `;…` first (normalize.ts). Where the readings' routes differ, a
    // client could be counted on one while the origin serves another's path.
    if (target.otherPaths?.some((path) => find(path) !== route)) throw new AmbiguousPathError(url.pathname);
    // The same where composing a reading moved a prefix's boundary (`/search` + U+0307).
    if (target.sentPaths?.some(([path, sent]) => find(path, sentPrefixes(sent)) !== route)) throw new AmbiguousPathError(url.pathname, COMPOSED);
    return route;
  };
}

/**
 * A path that routes differently depending on how the origin reads the dot segments its encoded
 * slashes or `;` parameters make (`/api/x%2F..%2F..%2Fhealth`, `/static/..;/login`); no client
 * needs to send one, so it is refused (400) rather than counted on either route.
 */
export class AmbiguousPathError extends Error {
  constructor(
    readonly pathname: string,
    why = "an encoded slash (%2F or %5C) or a `;` parameter makes a dot segment there, which origins resolve differently",
  ) {
    super(`The path ${JSON.stringify(pathname)} is ambiguous: ${why}`);
    this.name = "AmbiguousPathError";
  }
}

const COMPOSED = "a combining mark after a route's prefix joins its last letter when composed (Unicode NFC), and origins that route by the bytes sent do not";

/**
 * A route's methods with HEAD added when they list GET (RFC 9110 §9.3.2), once at compile time.
 *
 * @example
 * withHead(["GET", "POST"]); // ["GET", "POST", "HEAD"]
 */
export function withHead(methods: readonly string[] | undefined): readonly string[] | undefined {
  return methods?.includes("GET") && !methods.includes("HEAD") ? [...methods, "HEAD"] : methods;
}

type SentPrefix = ReturnType<typeof sentPrefixes>;

/**
 * Whether a compiled pattern matches a normalized target's scheme, host and path; with
 * `startsSent` (the path as sent, normalize.ts `sentPrefixes`), a prefix is read on it instead.
 */
function matches(pattern: Pattern, scheme: MatchTarget["scheme"], host: string, path: string, startsSent?: (prefix: string) => boolean): boolean {
  if (pattern.scheme && pattern.scheme !== scheme) return false;
  const hostOk = pattern.hostKind === "exact" ? host === pattern.host : host.endsWith(pattern.host);
  if (!hostOk) return false;
  if (pattern.pathKind === "prefix") return startsSent ? startsSent(pattern.path) : path.startsWith(pattern.path);
  // An exact path is kept without a trailing slash (pattern.ts); the request's may have one.
  return path === pattern.path || (path.length === pattern.path.length + 1 && path.endsWith("/") && path.startsWith(pattern.path));
}

function compile(source: string): Pattern {
  const pattern = parsePattern(source);
  if (typeof pattern === "string") throw new Error(`Invalid route pattern "${source}": ${pattern}`);
  return pattern;
}

function compareSpecificity(a: Pattern, b: Pattern): number {
  const left = specificity(a);
  const right = specificity(b);
  for (let i = 0; i < left.length; i++) if (left[i] !== right[i]) return left[i]! - right[i]!;
  return 0;
}
