/**
 * @module The HTTP words a route may name: `methods` (which requests it applies to) and `count`
 * (which answers it charges), each checked against what HTTP defines so that a typo is an error.
 */
import { type At, child, fail, quote, readInteger } from "./read.ts";

/** RFC 9110 §9 and RFC 5789 (PATCH): the methods a route may name. */
export const METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"] as const;

/**
 * Reads `methods`: a non-empty list of method names, any case in, uppercase out, no duplicates.
 *
 * @example
 * parseMethods(["post", "PUT"], at); // ["POST", "PUT"]
 */
export function parseMethods(value: unknown, at: At): string[] {
  const list = readNonEmptyList(value, at, 'methods, e.g. ["POST"]');
  return unique(
    list.map((item, index) => {
      const method = typeof item === "string" ? item.toUpperCase() : undefined;
      if (!method || !(METHODS as readonly string[]).includes(method))
        fail(child(at, index), `unknown method ${quote(item)} (expected one of ${METHODS.join(", ")})`);
      return method;
    }),
    at,
    "method",
  );
}

/**
 * Reads `count`: `"all"`, or a non-empty list of status codes (100 to 599, no duplicates).
 *
 * @example
 * parseCount([401, 403], at); // [401, 403]
 */
export function parseCount(value: unknown, at: At): "all" | number[] {
  if (value === "all") return "all";
  const list = readNonEmptyList(value, at, 'status codes, e.g. [401], or "all"');
  return unique(
    list.map((item, index) => readInteger(item, 100, 599, child(at, index))),
    at,
    "status code",
  );
}

function readNonEmptyList(value: unknown, at: At, what: string): unknown[] {
  if (!Array.isArray(value) || value.length === 0) fail(at, `expected a non-empty list of ${what}, got ${quote(value)}`);
  return value;
}

function unique<T>(items: T[], at: At, what: string): T[] {
  items.forEach((item, index) => {
    if (items.indexOf(item) !== index) fail(child(at, index), `duplicate ${what} ${quote(item)}`);
  });
  return items;
}
