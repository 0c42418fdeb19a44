/**
 * @module Who a request is counted against (docs/architecture.md, "The request path", step 3).
 *
 * - `CF-Connecting-IP` is the only trusted source on Cloudflare. `X-Forwarded-For` is
 *   client-controlled and is read only when `TRUSTED_PROXIES` says how many proxies of yours, in
 *   front of Cloudflare, append to it; the address is then the one the outermost of them saw.
 * - IPv6 is grouped by `IPV6_SUBNET`; IPv4-mapped IPv6 is IPv4 (see ip.ts).
 * - Header, cookie and query keys (API keys, sessions) are capped at {@link MAX_KEY_LENGTH} and
 *   hashed with SHA-256, so a secret never enters Redis or a log, and a key's length never enters
 *   a key; so are composite keys, whose parts may be such secrets.
 *
 * The safe rule for a missing or invalid value: never throw. A key (or any part of a composite)
 * that is missing or too long falls back to the client's address. An address that is missing or invalid is counted in
 * one shared bucket, `unknown`, which is strict (those clients limit each other) rather than
 * open, and the result carries a warning for the log: on Cloudflare it only happens when
 * something upstream is misconfigured.
 */
import type { KeySource } from "../config/types.ts";
import { clientIp, parseIp } from "./ip.ts";
import { readKeyPart, type RequestFacts } from "./sources.ts";

export type { RequestFacts } from "./sources.ts";

/**
 * Longer key values are not keys but noise (or an attempt to make hashing expensive). 8 KiB holds
 * a bearer JWT or a session cookie (browsers cap a cookie at 4 KiB): most are longer than 256
 * characters, the cap before, which made such a key fall back to the address.
 */
export const MAX_KEY_LENGTH = 8192;
/** The one bucket for clients without a usable address. */
export const UNKNOWN_CLIENT = "unknown";

/** The one UTF-8 encoder: the client hashes (here and the event sink's) and the admin token's comparison. */
export const ENCODER = new TextEncoder();
/** Each byte's two hex digits, built once per isolate. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** How the client is identified. */
export interface IdentifyOptions {
  key: KeySource;
  ipv6Subnet: number;
  trustedProxies: number;
}

/** The identity, safe for a Redis key, and why it is a fallback when it is one. */
export interface Identity {
  client: string;
  warning?: "missing-ip" | "invalid-ip" | "missing-forwarded-for" | "missing-key" | "key-too-long";
}

/**
 * Identifies the client of a request from its headers and, for `query:` and `cf:` keys, its URL
 * and `request.cf` (optional: without them those keys are missing and fall back to the address).
 * Header, cookie and query values are hashed (`key:`, `cookie:`, `query:`); `cf` values are not
 * secrets and stay readable (`asn:13335`, `country:DE`); a composite hashes its parts,
 * length-prefixed so that `a|b` + `c` and `a` + `b|c` differ (`multi:`). Any part missing or
 * longer than {@link MAX_KEY_LENGTH}: the client's address, with a warning.
 *
 * @example
 * await identify(new Headers({ "cf-connecting-ip": "2001:db8::1" }), { key: { kind: "ip" }, ipv6Subnet: 64, trustedProxies: 0 });
 * // { client: "2001:db8::/64" }
 * await identify(headers, { ...options, key: { kind: "query", name: "api_key" } }, { url: request.url, cf: request.cf });
 */
export async function identify(headers: Headers, options: IdentifyOptions, request: RequestFacts = {}): Promise<Identity> {
  const { key } = options;
  if (key.kind === "ip") return identifyIp(headers, options, request);
  const parts = key.kind === "composite" ? key.parts : [key];
  const values: string[] = [];
  for (const part of parts) {
    const value = part.kind === "ip" ? identifyIp(headers, options, request) : readKeyPart(part, headers, request);
    if (typeof value === "object") {
      if (value.warning) return value;
      values.push(value.client);
    } else if (value === undefined || value.length > MAX_KEY_LENGTH) {
      const address = identifyIp(headers, options, request);
      return address.warning ? address : { ...address, warning: value ? "key-too-long" : "missing-key" };
    } else values.push(value);
  }
  const prefix = clientPrefix(key);
  if (key.kind === "composite") return { client: `${prefix}:${await sha256Hex(values.map((value) => `${value.length}:${value}`).join(""))}` };
  if (key.kind === "cf") return { client: `${prefix}:${values[0]}` };
  return { client: `${prefix}:${await sha256Hex(values[0]!)}` };
}

/** The prefixes of every client that is not an address: {@link clientPrefix} of each kind of source. */
const PREFIXED = /^(key|cookie|query|multi|asn|country):/;
/** Every identifier {@link identify} builds for a client that is not an address, whole: a hash, an AS number or a country code after the prefix. */
const IDENTIFIER = /^(?:(?:key|cookie|query|multi):[0-9a-f]{32}|asn:[1-9][0-9]{0,9}|country:[A-Z0-9]{2})$/;

/**
 * The prefix of the clients `source` produces: `key` for a header, the field for `cf:` (`asn`,
 * `country`), `multi` for a composite, the kind for a cookie or query; undefined for an address,
 * which carries none. With {@link clientPrefixOf}, the one place that knows how identifiers are spelt.
 *
 * @example
 * clientPrefix({ kind: "header", name: "x-api-key" }) // "key"
 * clientPrefix({ kind: "ip" }) // undefined
 */
export function clientPrefix(source: KeySource): string | undefined {
  switch (source.kind) {
    case "ip":
      return undefined;
    case "header":
      return "key";
    case "composite":
      return "multi";
    case "cf":
      return source.field;
    default:
      return source.kind;
  }
}

/**
 * The prefix an identifier carries, or undefined for an address (`203.0.113.7`, `2001:db8::/64`,
 * `unknown`).
 *
 * @example
 * clientPrefixOf("key:5d1c…") // "key"
 * clientPrefixOf("2001:db8::/64") // undefined
 */
export function clientPrefixOf(client: string): string | undefined {
  return PREFIXED.exec(client)?.[1];
}

/**
 * Whether `text` is an identifier as {@link identify} builds it for a client that is not an
 * address, and as the logs print it: the admin API takes one as is.
 *
 * @example
 * isIdentifier("key:5d1c2f0e9a8b7c6d5e4f3a2b1c0d9e8f") // true
 * isIdentifier("key:not-a-hash") // false
 */
export function isIdentifier(text: string): boolean {
  return IDENTIFIER.test(text);
}

function identifyIp(headers: Headers, { ipv6Subnet, trustedProxies }: IdentifyOptions, request: RequestFacts): Identity {
  const address = request.address ? request.address() : clientAddress(headers, trustedProxies);
  if (address === undefined) return { client: UNKNOWN_CLIENT, warning: !request.address && trustedProxies > 0 ? "missing-forwarded-for" : "missing-ip" };
  return fromAddress(address, ipv6Subnet);
}

/**
 * The client's address as sent, unparsed: `CF-Connecting-IP`, or with `TRUSTED_PROXIES` the
 * `X-Forwarded-For` hop your outermost proxy saw, without the port some proxies append. The allow
 * and deny lists match it, so that they see the same client the limiter counts.
 *
 * @example
 * clientAddress(new Headers({ "cf-connecting-ip": "203.0.113.7" }), 0); // "203.0.113.7"
 * clientAddress(new Headers({ "cf-connecting-ip": "192.0.2.1", "x-forwarded-for": "[2001:db8::1]:443, 192.0.2.1" }), 1); // "2001:db8::1"
 */
export function clientAddress(headers: Headers, trustedProxies: number): string | undefined {
  const connecting = headers.get("cf-connecting-ip");
  if (trustedProxies > 0) {
    const hops = (headers.get("x-forwarded-for") ?? "")
      .split(",")
      .map((hop) => hop.trim())
      .filter(Boolean);
    // Cloudflare appends the address it saw (CF-Connecting-IP, i.e. your outermost proxy): that
    // entry is Cloudflare's hop, not one of yours, so it is not counted. Compared as addresses:
    // `2001:DB8::5` is `2001:db8::5` (RFC 5952 §2 lists the spellings of one address).
    if (hops.length > 0 && connecting && sameAddress(withoutPort(hops[hops.length - 1]!), connecting)) hops.pop();
    const hop = hops[hops.length - trustedProxies];
    return hop === undefined ? undefined : withoutPort(hop);
  }
  return connecting || undefined;
}

/** A port number after an address's colon. */
const PORT = /^[0-9]{1,5}$/;

/**
 * An address without its port: proxies such as Azure Application Gateway append `IPv4:port` and
 * `[IPv6]:port` to X-Forwarded-For (the node syntax of RFC 7239 §6, RFC 3986 §3.2.2 brackets). A
 * text with one colon is IPv4 with a port (IPv6 has at least two); anything else is left as
 * written, for clientIp to read or refuse.
 *
 * @example
 * withoutPort("[2001:db8::1]:443"); // "2001:db8::1"
 */
export function withoutPort(hop: string): string {
  if (hop.charCodeAt(0) === 0x5b) {
    const close = hop.indexOf("]");
    return close > 0 && hop.charCodeAt(close + 1) === 0x3a && PORT.test(hop.slice(close + 2)) ? hop.slice(1, close) : hop;
  }
  const colon = hop.indexOf(":");
  return colon > 0 && hop.indexOf(":", colon + 1) < 0 && PORT.test(hop.slice(colon + 1)) ? hop.slice(0, colon) : hop;
}

/** Whether two texts name one address: equal as text (the usual case, no parsing), or as parsed. */
function sameAddress(a: string, b: string): boolean {
  const trimmed = b.trim();
  if (a === trimmed) return true;
  const left = parseIp(a);
  const right = parseIp(trimmed);
  return left !== undefined && right !== undefined && left.family === right.family && left.value === right.value;
}

function fromAddress(text: string, ipv6Subnet: number): Identity {
  const client = clientIp(text, ipv6Subnet);
  return client ? { client } : { client: UNKNOWN_CLIENT, warning: "invalid-ip" };
}

/** SHA-256 (Web Crypto), first 128 bits in hex: collision-free in practice, half the key size. The admin API hashes `key=` with it, as requests are. */
export async function sha256Hex(value: string): Promise<string> {
  return first128Hex(await crypto.subtle.digest("SHA-256", ENCODER.encode(value)));
}

/** A digest's first 128 bits in hex (lowercase, two digits a byte). */
export function first128Hex(digest: ArrayBuffer): string {
  return Array.from(new Uint8Array(digest, 0, 16), (byte) => HEX[byte]).join("");
}
