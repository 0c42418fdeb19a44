/**
 * @module The client an admin request names, identified exactly as a request of that client
 * would be (src/keys/identify.ts): `client=<address>` is normalized (IPv6 grouped by
 * `IPV6_SUBNET`, IPv4-mapped IPv6 as IPv4; an IPv6 client as the logs print it, `2001:db8::/64`,
 * is its own network), or taken as is when it is an identifier as the logs print it
 * (`key:<hash>`, `cookie:<hash>`, `asn:13335`, `country:DE` in either case, …); `key=<raw value>` is hashed as the
 * route's key source hashes it.
 */
import { clientIp } from "../keys/ip.ts";
import { isIdentifier, MAX_KEY_LENGTH, sha256Hex, UNKNOWN_CLIENT } from "../keys/identify.ts";

/** Why a `key=` that the routes would read as two clients names none (`asRead` gave no reading). */
const AMBIGUOUS_KEY =
  'This key is read differently by routes keyed by Authorization and by other headers; give "client" as the logs print it (key:<hash>), or ask status with the route for it.';

/** The client id, or why the query names none. */
export type ClientParam = { client: string } | { error: string };

/**
 * Reads `client` or `key` from an admin request's query; `keyPrefix` is what a hashed `key=`
 * value is prefixed with: `key` for a header (the default), `cookie` or `query` on a route keyed so;
 * `asRead` reads the raw value as the route's key source reads it in a request (sources.ts), or
 * gives `undefined` where the routes would read it as two clients.
 *
 * @example
 * await readClientParam(new URLSearchParams("client=2001:db8::1"), 64); // { client: "2001:db8::/64" }
 * await readClientParam(new URLSearchParams("key=sk_live_1"), 64); // { client: "key:5d1c…" }
 * await readClientParam(new URLSearchParams("key=abc"), 64, "cookie"); // { client: "cookie:ba78…" }
 * await readClientParam(new URLSearchParams("client=cookie:ba7816bf8f01cfea414140de5dae2223"), 64); // taken as is
 */
export async function readClientParam(
  query: URLSearchParams,
  ipv6Subnet: number,
  keyPrefix = "key",
  asRead: (raw: string) => string | undefined = (raw) => raw,
): Promise<ClientParam> {
  // Exactly one parameter, given once: of a repeated one the first would act and the rest go
  // unseen, an entry or a reset the operator did not mean to make on that client alone.
  if (query.getAll("client").length + query.getAll("key").length !== 1)
    return { error: 'Give exactly one of "client" (an IP address, or a client id as the logs print it) and "key" (a raw key value), once.' };
  const key = query.get("key");
  if (key !== null) {
    if (key === "" || key.length > MAX_KEY_LENGTH) return { error: `Invalid key: expected 1 to ${MAX_KEY_LENGTH} characters, got ${key.length}.` };
    const value = asRead(key);
    if (value === undefined) return { error: AMBIGUOUS_KEY };
    return { client: `${keyPrefix}:${await sha256Hex(value)}` };
  }
  // A country code is counted in capitals; DENY and ALLOW take it in any case, and so does this.
  const address = query.get("client")!.replace(/^country:(\w\w)$/, (_, code: string) => `country:${code.toUpperCase()}`);
  // `unknown` is the bucket of clients without a usable address: an operator may reset it too.
  if (address === UNKNOWN_CLIENT || isIdentifier(address)) return { client: address };
  // An IPv6 client may come as the logs and `lists` print it: its network, per IPV6_SUBNET.
  const [ip = "", prefixLength, ...rest] = address.split("/");
  const client = rest.length === 0 ? clientIp(ip, ipv6Subnet) : undefined;
  if (client !== undefined && prefixLength === undefined) return { client };
  if (client !== undefined && ip.includes(":")) {
    if (prefixLength === String(ipv6Subnet)) return { client };
    return {
      error: `Invalid client ${JSON.stringify(address.slice(0, 100))}: IPv6 clients are counted per /${ipv6Subnet} (IPV6_SUBNET); give an address, or its /${ipv6Subnet} as the logs print it.`,
    };
  }
  return {
    error: `Invalid client ${JSON.stringify(address.slice(0, 100))}: expected an IPv4 or IPv6 address, or an identifier as the logs print it (key:<32 hex digits>, …).`,
  };
}
