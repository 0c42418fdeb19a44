/**
 * @module The client an admin request names, identified exactly as a request of that client
 * would be (src/keys/identify.ts): `client=<address>` is normalized (IPv6 grouped by
 * `IPV6_SUBNET`, IPv4-mapped IPv6 as IPv4); `key=<raw value>` is hashed like a header key.
 */
import { clientIp } from "../keys/ip.ts";
import { MAX_KEY_LENGTH, sha256Hex, UNKNOWN_CLIENT } from "../keys/identify.ts";

/** The client id, or why the query names none. */
export type ClientParam = { client: string } | { error: string };

/**
 * Reads `client` or `key` from an admin request's query.
 *
 * @example
 * await readClientParam(new URLSearchParams("client=2001:db8::1"), 64); // { client: "2001:db8::/64" }
 * await readClientParam(new URLSearchParams("key=sk_live_1"), 64); // { client: "key:5d1c…" }
 */
export async function readClientParam(query: URLSearchParams, ipv6Subnet: number): Promise<ClientParam> {
  const address = query.get("client");
  const key = query.get("key");
  if ((address === null) === (key === null)) return { error: 'Give exactly one of "client" (an IP address) and "key" (a raw key value).' };
  if (key !== null) {
    if (key === "" || key.length > MAX_KEY_LENGTH) return { error: `Invalid key: expected 1 to ${MAX_KEY_LENGTH} characters, got ${key.length}.` };
    return { client: `key:${await sha256Hex(key)}` };
  }
  // `unknown` is the bucket of clients without a usable address: an operator may reset it too.
  if (address === UNKNOWN_CLIENT) return { client: UNKNOWN_CLIENT };
  const client = clientIp(address!, ipv6Subnet);
  return client === undefined ? { error: `Invalid client ${JSON.stringify(address!.slice(0, 100))}: expected an IPv4 or IPv6 address.` } : { client };
}
