/**
 * @module The methods a POST asks an origin to run it as. Rails (Rack::MethodOverride), Symfony,
 * Laravel and Express's `method-override` run a POST as the method named in a header or a
 * `_method` parameter, so a route's `methods` must be checked against those too (match.ts).
 */

/** The headers frameworks read an override from (Google's, Microsoft's and IBM's names). */
const HEADERS = ["x-http-method-override", "x-http-method", "x-method-override"] as const;
/** What every request but a POST gets, without an allocation each. */
const NONE: readonly string[] = Object.freeze([]);
/** A method name: an HTTP token (RFC 9110 §5.6.2). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The methods other than POST that a POST names in an override header or `_method` query
 * parameter, in uppercase, each once; none for any other method, which no framework overrides.
 * A list (`DELETE, PUT`) gives each of its methods: Express takes the last, others the whole value.
 * A `_method` in a form body is not read: that would mean reading the body.
 *
 * @example
 * methodOverrides("POST", new Headers({ "x-http-method-override": "delete" }), "https://example.com/a"); // ["DELETE"]
 * methodOverrides("GET", new Headers({ "x-http-method-override": "DELETE" }), "https://example.com/a"); // []
 */
export function methodOverrides(method: string, headers: Headers, url: string): readonly string[] {
  if (method.toUpperCase() !== "POST") return NONE;
  const named: string[] = [];
  for (const name of HEADERS) {
    const value = headers.get(name);
    if (value !== null) named.push(...value.split(","));
  }
  if (url.includes("_method=")) named.push(...new URL(url).searchParams.getAll("_method"));
  const methods = new Set<string>();
  for (const value of named) {
    const upper = value.trim().toUpperCase();
    if (TOKEN.test(upper) && upper !== "POST") methods.add(upper);
  }
  return [...methods];
}
