/**
 * @module The raw value of one key source in a request: a header, a cookie, a query parameter or
 * a `cf` field. Values are returned as the client sent them (no decoding beyond the URL's own), to
 * be hashed by identify.ts; `undefined` when the request does not carry one.
 */
import type { KeyPart } from "../config/types.ts";

/** What a request offers beyond its headers: its URL and Cloudflare's `request.cf` fields. */
export interface RequestFacts {
  url?: string;
  cf?: { asn?: number; country?: string };
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
      return headers.get(part.name) || undefined;
    case "cookie":
      return readCookie(headers.get("cookie"), part.name);
    case "query":
      return readQuery(request.url, part.name);
    case "cf":
      return part.field === "asn" ? readAsn(request.cf?.asn) : readCountry(request.cf?.country);
  }
}

/**
 * RFC 6265 §5.4: `name=value` pairs separated by `;`. The first pair with the name wins; the value
 * is kept as sent (no percent-decoding, no unquoting), so one cookie has one spelling.
 */
function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(";")) {
    const equals = pair.indexOf("=");
    if (equals >= 0 && pair.slice(0, equals).trim() === name) return pair.slice(equals + 1).trim() || undefined;
  }
  return undefined;
}

function readQuery(url: string | undefined, name: string): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).searchParams.get(name) || undefined;
  } catch {
    return undefined;
  }
}

function readAsn(asn: number | undefined): string | undefined {
  return Number.isInteger(asn) && asn! > 0 ? String(asn) : undefined;
}

/** Two letters or digits (`T1`): anything else is not what Cloudflare sends, so not a key. */
function readCountry(country: string | undefined): string | undefined {
  const code = country?.toUpperCase();
  return code && /^[A-Z0-9]{2}$/.test(code) ? code : undefined;
}
