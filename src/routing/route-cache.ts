/**
 * @module The route lookup of a request by its URL text, remembered per isolate: clients ask for
 * the same few paths again and again, and parsing the URL, normalizing its path and walking the
 * routes cost more than the rest of a decision. The key is the method and the URL up to its query
 * (normalization never reads the query), so a remembered answer is the one the matcher would
 * give. Bounded: a flood of distinct paths empties it and costs one lookup each, as without it.
 */
import type { RouteMatcher } from "./match.ts";

/** The route for a request's URL text (as `Request.url` serializes it) and method. */
export type CachedRouteMatcher<T> = (url: string, method: string) => T | undefined;

/** Remembered lookups before the memo starts over. */
const DEFAULT_CAPACITY = 1_000;

/**
 * Wraps `match` with a memo of at most `capacity` URLs.
 *
 * @example
 * const route = memoizeRoutes(compileRoutes(routes));
 * route("https://api.example.com/v1/users?page=2", "GET");
 */
export function memoizeRoutes<T>(match: RouteMatcher<T>, capacity = DEFAULT_CAPACITY): CachedRouteMatcher<T> {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`Route memo capacity must be a positive integer, got ${capacity}`);
  const memo = new Map<string, T | undefined>();
  return function routeFor(url, method) {
    const query = url.search(/[?#]/);
    const key = `${method} ${query < 0 ? url : url.slice(0, query)}`;
    const known = memo.get(key);
    if (known !== undefined || memo.has(key)) return known;
    const route = match(new URL(url), method);
    if (memo.size >= capacity) memo.clear();
    memo.set(key, route);
    return route;
  };
}
