/**
 * @module What the allow and deny lists say about one client. Precedence:
 * 1. levels are checked in order, the route's own lists before the global `ALLOW`/`DENY`, and the
 *    first level that names the client decides: a route can let its office network through a
 *    global country ban, or shut a client out of one route that the global `ALLOW` lets through;
 * 2. within one level, deny beats allow: a client on both lists is denied (a mistake in a list
 *    should fail closed, and a narrow deny inside a broad allow is the common intent).
 *
 * `allow` means forward without counting (and without a Redis call); `deny` means answer 403
 * without a Redis call; `undefined` means the lists say nothing and the rules decide.
 */
import type { ListEntry } from "../config/types.ts";
import { type ParsedIp, parseIp } from "../keys/ip.ts";
import { compileList, type ListMatcher, type NetworkFacts } from "./match.ts";

/** One level of lists: a route's own, or the global ones. */
export interface ListLevel {
  allow: ListMatcher;
  deny: ListMatcher;
}

/**
 * What the request tells about its client: the raw `CF-Connecting-IP`, `cf.country`, `cf.asn`.
 * The last two are read only by lists that name a country or an AS number (./match.ts).
 */
export interface ListClient extends NetworkFacts {
  ip?: string;
}

/** The lists' decision; `undefined` leaves it to the rules. */
export type ListVerdict = "allow" | "deny" | undefined;

/**
 * Compiles one level, once per settings.
 *
 * @example
 * const global = compileLevel(settings); // ALLOW and DENY
 * const login = compileLevel(settings.routes[0]!); // the route's allow and deny
 */
export function compileLevel(lists: { allow: readonly ListEntry[]; deny: readonly ListEntry[] }): ListLevel {
  return { allow: compileList(lists.allow), deny: compileList(lists.deny) };
}

/**
 * Decides for one client; `levels` go from the most specific (the route's) to the global one.
 * The address is parsed once, and only when some list is not empty.
 *
 * @example
 * listVerdict([route, global], { ip: "203.0.113.7", country: "DE", asn: 64496 }); // "deny" | "allow" | undefined
 */
export function listVerdict(levels: readonly ListLevel[], client: ListClient): ListVerdict {
  if (levels.every((level) => level.allow.empty && level.deny.empty)) return undefined;
  const ip = client.ip === undefined ? undefined : parseIp(client.ip);
  for (const { allow, deny } of levels) {
    if (deny.matchParsed(ip, client)) return "deny";
    if (allow.matchParsed(ip, client)) return "allow";
  }
  return undefined;
}

/**
 * What the lists decide for every address of the network `ip/prefix` (an IPv6 client, as the
 * admin API's status names it): the verdict when it is the same for all of them, else
 * `undefined`, also when an entry narrower than the network decides for only some of its
 * addresses. Country and AS entries are not asked: a network has neither.
 *
 * @example
 * networkVerdict([global], parseIp("2001:db8:dead::")!, 64); // "deny" when DENY holds "ip:2001:db8:dead::/48"
 */
export function networkVerdict(levels: readonly ListLevel[], ip: ParsedIp, prefix: number): ListVerdict {
  const found = new Set<ListVerdict>();
  for (const { allow, deny } of levels) {
    const denied = deny.coverage(ip, prefix);
    const allowed = allow.coverage(ip, prefix);
    if (denied !== "none") found.add("deny");
    // Deny beats allow within a level: an allow decides only where no deny does.
    if (denied !== "all" && allowed !== "none") found.add("allow");
    if (denied === "all" || allowed === "all") return found.size === 1 ? [...found][0] : undefined;
  }
  // No level holds the whole network: some of its addresses, at least, are left to the rules.
  return undefined;
}
