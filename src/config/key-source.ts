/**
 * @module A route's `key`: who its requests are counted against. One source (`ip`,
 * `header:<name>`, `cookie:<name>`, `query:<name>`, `cf:asn`, `cf:country`) or a list of 2 to 4
 * distinct ones, hashed together (per user agent and address, per API key and country, …).
 */
import { TOKEN } from "../headers/header-value.ts";
import { type At, child, fail, quote } from "./read.ts";
import type { KeyPart, KeySource } from "./types.ts";

/** Unreserved URL characters and brackets (`filter[user]`): no name that decoding would change. */
const QUERY_NAME = /^[A-Za-z0-9_.~[\]-]{1,128}$/;
const SYNTAX = 'expected "ip", "header:<name>", "cookie:<name>", "query:<name>", "cf:asn", "cf:country", or a list of 2 to 4 of these';
const TOKEN_CHARS = "letters, digits and !#$%&'*+-.^_`|~";

/**
 * Reads a route's `key`.
 *
 * @example
 * parseKeySource(["ip", "header:User-Agent"], at);
 * // { kind: "composite", parts: [{ kind: "ip" }, { kind: "header", name: "user-agent" }] }
 */
export function parseKeySource(value: unknown, at: At): KeySource {
  if (!Array.isArray(value)) return parsePart(value, at);
  if (value.length < 2 || value.length > 4) fail(at, `a composite key has 2 to 4 parts, got ${value.length} in ${quote(value)}`);
  const seen = new Set<string>();
  const parts = value.map((item, index) => {
    if (Array.isArray(item)) fail(child(at, index), `composite keys do not nest, got ${quote(item)}`);
    const part = parsePart(item, child(at, index));
    const id = JSON.stringify(part);
    if (seen.has(id)) fail(child(at, index), `duplicate key part ${quote(item)}`);
    seen.add(id);
    return part;
  });
  return { kind: "composite", parts };
}

/**
 * A key source as ROUTES writes it: the inverse of {@link parseKeySource}.
 *
 * @example
 * formatKeySource({ kind: "composite", parts: [{ kind: "ip" }, { kind: "header", name: "user-agent" }] })
 * // "[ip, header:user-agent]"
 */
export function formatKeySource(key: KeySource): string {
  const part = (one: KeyPart) => (one.kind === "ip" ? "ip" : one.kind === "cf" ? `cf:${one.field}` : `${one.kind}:${one.name}`);
  return key.kind === "composite" ? `[${key.parts.map(part).join(", ")}]` : part(key);
}

function parsePart(value: unknown, at: At): KeyPart {
  const invalid = (why: string): never => fail(at, `invalid key source ${quote(value)} (${why})`);
  if (value === "ip") return { kind: "ip" };
  const colon = typeof value === "string" ? value.indexOf(":") : -1;
  if (typeof value !== "string" || colon < 0) return invalid(SYNTAX);
  const name = value.slice(colon + 1);
  switch (value.slice(0, colon)) {
    case "header":
      // Header names are case-insensitive; `Headers` reads them in lowercase.
      if (!TOKEN.test(name)) invalid(`a header name is a token: ${TOKEN_CHARS}`);
      return { kind: "header", name: name.toLowerCase() };
    case "cookie":
      if (!TOKEN.test(name)) invalid(`a cookie name is a token: ${TOKEN_CHARS}`);
      return { kind: "cookie", name };
    case "query":
      if (!QUERY_NAME.test(name)) invalid('a query parameter name has 1 to 128 letters, digits, "_", ".", "~", "-", "[" or "]"');
      return { kind: "query", name };
    case "cf":
      if (name !== "asn" && name !== "country") invalid('expected "cf:asn" or "cf:country"');
      return { kind: "cf", field: name as "asn" | "country" };
    default:
      return invalid(SYNTAX);
  }
}
