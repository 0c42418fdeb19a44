/**
 * @module `ALLOW`, `DENY` and a route's `allow`/`deny`: lists of `ip:<address or CIDR>`,
 * `country:<code>` and `asn:<number>` entries, each validated and normalized once, so that a typo
 * is an error at startup instead of a client silently let through or shut out.
 */
import { formatIp, ipv4Mask, ipv6Mask, parseIp } from "../keys/ip.ts";
import { type At, child, fail, quote, readJsonList } from "./read.ts";
import type { ListEntry } from "./types.ts";

/** ISO 3166-1 alpha-2 (the 249 assigned codes), plus Cloudflare's `T1` (Tor) and `XX` (unknown). */
const COUNTRIES = new Set(
  (
    "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ " +
    "CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR " +
    "GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP " +
    "KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ " +
    "NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW " +
    "SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ " +
    "UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW T1 XX"
  ).split(" "),
);
const MAX_ASN = 4_294_967_295;
const ENTRY_SYNTAX = 'expected "ip:<address or CIDR>", "country:<code>" or "asn:<number>"';

/**
 * Reads `ALLOW` or `DENY`: JSON text or an already structured list.
 *
 * @example
 * parseList('["ip:10.0.0.0/8", "country:t1"]', { source: "DENY", path: "" });
 * // [{ kind: "ipv4", network: 167772160, prefix: 8 }, { kind: "country", code: "T1" }]
 */
export function parseList(value: unknown, at: At): ListEntry[] {
  return parseEntries(readJsonList(value, at, "entries", '["ip:192.0.2.0/24", "country:T1", "asn:64496"]'), at);
}

/**
 * Reads a list that is already structured: a route's `allow` or `deny` (inside `ROUTES`, so JSON
 * text was parsed with the route).
 */
export function parseEntries(value: unknown, at: At): ListEntry[] {
  if (!Array.isArray(value)) fail(at, `expected a list of entries such as ["ip:192.0.2.0/24"], got ${quote(value)}`);
  return value.map((entry, index) => parseEntry(entry, child(at, index)));
}

/**
 * An entry as the settings write it: the inverse of the parsing above, in normal form (a /32 or
 * /128 as a bare address, IPv6 in RFC 5952 form, IPv4-mapped IPv6 as IPv4, a country in capitals).
 *
 * @example
 * formatListEntry({ kind: "ipv4", network: 167772160, prefix: 8 }); // "ip:10.0.0.0/8"
 * formatListEntry({ kind: "ipv4", network: 3221225985, prefix: 32 }); // "ip:192.0.2.1"
 * formatListEntry({ kind: "country", code: "T1" }); // "country:T1"
 */
export function formatListEntry(entry: ListEntry): string {
  switch (entry.kind) {
    case "ipv4":
      return `ip:${formatIp({ family: 4, value: entry.network })}${entry.prefix === 32 ? "" : `/${entry.prefix}`}`;
    case "ipv6":
      return `ip:${formatIp({ family: 6, value: entry.network })}${entry.prefix === 128 ? "" : `/${entry.prefix}`}`;
    case "country":
      return `country:${entry.code}`;
    case "asn":
      return `asn:${entry.asn}`;
  }
}

function parseEntry(value: unknown, at: At): ListEntry {
  const invalid = (why: string): never => fail(at, `invalid entry ${quote(value)} (${why})`);
  const colon = typeof value === "string" ? value.indexOf(":") : -1;
  if (typeof value !== "string" || colon < 0) return invalid(ENTRY_SYNTAX);
  const kind = value.slice(0, colon);
  const rest = value.slice(colon + 1);
  if (kind === "ip") return parseRange(rest, invalid);
  if (kind === "country") {
    const code = rest.toUpperCase();
    if (!COUNTRIES.has(code)) invalid('expected an ISO 3166-1 alpha-2 code such as "DE" or "GB", "T1" for Tor or "XX" for unknown');
    return { kind: "country", code };
  }
  if (kind === "asn") {
    const asn = /^[1-9][0-9]{0,9}$/.test(rest) ? Number(rest) : 0;
    if (asn < 1 || asn > MAX_ASN) invalid(`expected an AS number from 1 to ${MAX_ASN}, digits only`);
    return { kind: "asn", asn };
  }
  return invalid(ENTRY_SYNTAX);
}

/** `<address>` or `<address>/<prefix>`; set host bits are refused, as they usually hide a typo. */
function parseRange(text: string, invalid: (why: string) => never): ListEntry {
  const slash = text.lastIndexOf("/");
  const address = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (!address) return invalid("not an IPv4 or IPv6 address");
  // Clients written as IPv4-mapped IPv6 are counted as IPv4, so a mapped range is an IPv4 range.
  const mapped = address.family === 4 && text.slice(0, slash < 0 ? undefined : slash).includes(":");
  const bits = address.family === 4 ? 32 : 128;
  const written = slash < 0 ? (mapped ? 128 : bits) : /^[0-9]{1,3}$/.test(text.slice(slash + 1)) ? Number(text.slice(slash + 1)) : -1;
  if (mapped && written < 96) invalid("prefix length must be 96 to 128 for an IPv4-mapped IPv6 address");
  const prefix = mapped ? written - 96 : written;
  if (prefix < 0 || prefix > bits) invalid(`prefix length must be 0 to ${bits} for IPv${address.family}`);
  if (address.family === 4) {
    const network = (address.value & ipv4Mask(prefix)) >>> 0;
    if (network !== address.value) invalid(`host bits set; the network is ${formatIp({ family: 4, value: network })}/${prefix}`);
    return { kind: "ipv4", network, prefix };
  }
  const network = address.value & ipv6Mask(prefix);
  if (network !== address.value) invalid(`host bits set; the network is ${formatIp({ family: 6, value: network })}/${prefix}`);
  return { kind: "ipv6", network, prefix };
}
