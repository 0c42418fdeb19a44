/**
 * @module PURE: the path form of a command, `GET|POST /set/foo/bar?EX=100` (docs/shim.md §1;
 * § numbers below are that file's).
 * `@upstash/redis` never uses it; curl users and the Upstash docs do.
 */
import { RequestError, type Arg, type Command } from "./protocol.ts";

/**
 * Builds a command from the path's segments, the raw body (appended as the last argument when
 * non-empty) and the query parameters (after the body: `?EX=100` → `EX`, `100`; a parameter without
 * a value adds only its name). `path` is the request target's path as sent: each segment is
 * percent-decoded on its own, so `.`, `..`, `%2E%2E` and `\` are arguments like any other, never
 * a path to resolve. `_token` is not an argument (§2).
 *
 * @example
 * pathFormCommand("/set/foo/bar", new URLSearchParams("EX=100"), Buffer.alloc(0));
 * // → { name: "SET", args: ["foo", "bar", "EX", "100"] }
 */
export function pathFormCommand(path: string, query: URLSearchParams, body: Buffer): Command {
  const segments = path.split("/").slice(1);
  const decoded = segments.map((segment) => decodeSegment(segment, "ERR failed to parse command:"));
  const [name, ...args] = decoded as [string, ...Arg[]];
  if (!name) throw new RequestError(400, "ERR empty command");
  if (body.length > 0) args.push(body);
  for (const [key, value] of query) {
    if (key === "_token") continue;
    args.push(key);
    if (value !== "") args.push(value);
  }
  return { name: name.toUpperCase(), args };
}

/**
 * Percent-decodes one path segment (§1); a bad escape is a 400 whose message starts with `context`.
 *
 * @example
 * decodeSegment("caf%C3%A9"); // → "café"
 */
export function decodeSegment(segment: string, context = "ERR"): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new RequestError(400, `${context} bad percent-encoding in path segment "${segment}"`);
  }
}
