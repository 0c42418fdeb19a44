/**
 * @module One allow or deny list, compiled once per settings into hash lookups: IP ranges grouped
 * by prefix length (masked network → member of a Set), countries and AS numbers in Sets. A lookup
 * costs one mask and one Set probe per distinct prefix length present (at most 33 for IPv4, 129
 * for IPv6), whatever the number of entries: 10,000 /32s cost the same as one.
 */
import type { ListEntry } from "../config/types.ts";
import { ipv4Mask, ipv6Mask, type ParsedIp, parseIp } from "../keys/ip.ts";

/** A compiled list. */
export interface ListMatcher {
  /** No entries: every lookup is `false` without parsing anything. */
  readonly empty: boolean;
  /**
   * Whether the client is on the list. `ip` is the raw `CF-Connecting-IP` text, parsed as
   * src/keys/ip.ts parses it (an unparsable or missing address matches no `ip:` entry);
   * `country` is `cf.country` (any case), `asn` is `cf.asn`.
   */
  match(ip: string | undefined, country: string | undefined, asn: number | undefined): boolean;
  /**
   * {@link ListMatcher.match} with the address already parsed, so that several lists parse it
   * once. `network.country` and `network.asn` are read only by a list that names a country or an
   * AS number: on Workers they come from `request.cf`, which costs a decode on first access.
   */
  matchParsed(ip: ParsedIp | undefined, network: NetworkFacts): boolean;
  /**
   * How much of the network `ip/prefix` the list's `ip:` entries hold: `all` (an entry of prefix
   * length ≤ `prefix` contains it), `some` (only narrower entries inside it), or `none`. For the
   * admin API's status of an IPv6 client, which is a network; never on the request path.
   */
  coverage(ip: ParsedIp, prefix: number): "all" | "some" | "none";
}

/** The client's country and AS number, read only when a list needs them (getters welcome). */
export interface NetworkFacts {
  readonly country?: string;
  readonly asn?: number;
}

/**
 * Compiles a list; the cost of a lookup does not grow with the number of entries (see the module).
 *
 * @example
 * const deny = compileList(readSettings(env).deny);
 * deny.match("10.1.2.3", "DE", 64496); // true when DENY holds "ip:10.0.0.0/8"
 */
export function compileList(entries: readonly ListEntry[]): ListMatcher {
  const v4 = new PrefixTable<number>();
  const v6 = new PrefixTable<bigint>();
  const countries = new Set<string>();
  const asns = new Set<number>();
  for (const entry of entries) {
    if (entry.kind === "ipv4") v4.add(entry.prefix, entry.network);
    else if (entry.kind === "ipv6") v6.add(entry.prefix, entry.network);
    else if (entry.kind === "country") countries.add(entry.code);
    else asns.add(entry.asn);
  }
  const v4Masks = v4.prefixes().map((prefix) => [prefix, ipv4Mask(prefix)] as const);
  const v6Masks = v6.prefixes().map((prefix) => [prefix, ipv6Mask(prefix)] as const);

  const matchParsed = (ip: ParsedIp | undefined, network: NetworkFacts): boolean => {
    if (asns.size > 0) {
      const asn = network.asn;
      if (asn !== undefined && asns.has(asn)) return true;
    }
    if (countries.size > 0) {
      const country = network.country;
      if (country !== undefined && countries.has(country.toUpperCase())) return true;
    }
    if (ip?.family === 4) return v4Masks.some(([prefix, mask]) => v4.has(prefix, (ip.value & mask) >>> 0));
    if (ip?.family === 6) return v6Masks.some(([prefix, mask]) => v6.has(prefix, ip.value & mask));
    return false;
  };
  const coverage = (ip: ParsedIp, prefix: number): "all" | "some" | "none" =>
    ip.family === 4
      ? coverageIn(v4, ip.value, prefix, (value, length) => (value & ipv4Mask(length)) >>> 0)
      : coverageIn(v6, ip.value, prefix, (value, length) => value & ipv6Mask(length));
  return {
    empty: entries.length === 0,
    matchParsed,
    coverage,
    match: (ip, country, asn) => entries.length > 0 && matchParsed(ip === undefined ? undefined : parseIp(ip), { country, asn }),
  };
}

function coverageIn<T extends number | bigint>(
  table: PrefixTable<T>,
  value: T,
  prefix: number,
  masked: (value: T, length: number) => T,
): "all" | "some" | "none" {
  const lengths = table.prefixes();
  if (lengths.some((length) => length <= prefix && table.has(length, masked(value, length)))) return "all";
  const network = masked(value, prefix);
  const inside = lengths.some((length) => length > prefix && [...table.networks(length)].some((entry) => masked(entry, prefix) === network));
  return inside ? "some" : "none";
}

/** Masked networks by prefix length. */
class PrefixTable<T extends number | bigint> {
  private readonly byPrefix = new Map<number, Set<T>>();

  add(prefix: number, network: T): void {
    let networks = this.byPrefix.get(prefix);
    if (!networks) {
      networks = new Set();
      this.byPrefix.set(prefix, networks);
    }
    networks.add(network);
  }

  has(prefix: number, network: T): boolean {
    return this.byPrefix.get(prefix)!.has(network);
  }

  networks(prefix: number): ReadonlySet<T> {
    return this.byPrefix.get(prefix) ?? new Set();
  }

  /** Longest first: the most common entries (single addresses) are probed first. */
  prefixes(): number[] {
    return [...this.byPrefix.keys()].sort((a, b) => b - a);
  }
}
