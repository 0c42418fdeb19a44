/**
 * @module IP addresses as client identities: strict parsing (no DNS, no legacy forms such as
 * `0x7f.1`), IPv4-mapped IPv6 as IPv4, and IPv6 grouped by prefix, because one subscriber gets a
 * whole /64 and can rotate addresses inside it (RFC 6177).
 */

const IPV4 = /^(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/;

/**
 * The identity of an address: IPv4 as dotted quad; IPv6 as its `/subnet` prefix in RFC 5952 form.
 * `undefined` when the text is not an address.
 *
 * @example
 * clientIp("2001:db8:1:2:aaaa::1", 64); // "2001:db8:1:2::/64"
 * clientIp("::ffff:203.0.113.7", 64); // "203.0.113.7"
 */
export function clientIp(text: string, ipv6Subnet: number): string | undefined {
  const trimmed = text.trim().toLowerCase();
  if (IPV4.test(trimmed)) return trimmed;
  const groups = parseIpv6(trimmed);
  if (!groups) return undefined;
  if (isIpv4Mapped(groups)) return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join(".");
  return `${formatIpv6(maskGroups(groups, ipv6Subnet))}/${ipv6Subnet}`;
}

/** An address as a number: IPv4 as an unsigned 32-bit integer, IPv6 as a 128-bit BigInt. */
export type ParsedIp = { family: 4; value: number } | { family: 6; value: bigint };

/**
 * Parses an address with the same strict rules as {@link clientIp} (IPv4-mapped IPv6 is IPv4),
 * as a number that CIDR ranges can be masked against. `undefined` when the text is not an address.
 *
 * @example
 * parseIp("::ffff:10.0.0.1"); // { family: 4, value: 167772161 }
 * parseIp("2001:db8::1"); // { family: 6, value: 42540766411282592856903984951653826561n }
 */
export function parseIp(text: string): ParsedIp | undefined {
  const trimmed = text.trim().toLowerCase();
  if (IPV4.test(trimmed)) return { family: 4, value: ipv4Value(trimmed) };
  const groups = parseIpv6(trimmed);
  if (!groups) return undefined;
  if (isIpv4Mapped(groups)) return { family: 4, value: ((groups[6]! << 16) | groups[7]!) >>> 0 };
  return { family: 6, value: groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n) };
}

/**
 * The text of a parsed address: IPv4 dotted, IPv6 in RFC 5952 form; the inverse of {@link parseIp}.
 *
 * @example
 * formatIp({ family: 4, value: 167772160 }); // "10.0.0.0"
 * formatIp({ family: 6, value: 42540766411282592856903984951653826560n }); // "2001:db8::"
 */
export function formatIp(ip: ParsedIp): string {
  if (ip.family === 4) return [ip.value >>> 24, (ip.value >>> 16) & 255, (ip.value >>> 8) & 255, ip.value & 255].join(".");
  return formatIpv6(Array.from({ length: 8 }, (_, index) => Number((ip.value >> BigInt(112 - 16 * index)) & 0xffffn)));
}

/** The netmask of an IPv4 prefix length, as an unsigned integer (`<< 32` is `<< 0` in JS). */
export function ipv4Mask(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}

/** The netmask of an IPv6 prefix length. */
export function ipv6Mask(prefix: number): bigint {
  return ((1n << BigInt(prefix)) - 1n) << BigInt(128 - prefix);
}

function ipv4Value(dotted: string): number {
  return dotted.split(".").reduce((value, octet) => ((value << 8) | Number(octet)) >>> 0, 0);
}

/** Eight 16-bit groups, or `undefined`. A zone id (`fe80::1%eth0`) is dropped: it is local. */
function parseIpv6(text: string): number[] | undefined {
  let address = text.replace(/^\[|\]$/g, "");
  const zone = address.indexOf("%");
  if (zone >= 0) address = address.slice(0, zone);
  if (!address.includes(":")) return undefined;
  const lastColon = address.lastIndexOf(":");
  const last = address.slice(lastColon + 1);
  if (last.includes(".")) {
    // An embedded IPv4 tail (`::ffff:203.0.113.7`) is two groups written in decimal.
    if (!IPV4.test(last)) return undefined;
    const [a, b, c, d] = last.split(".").map(Number) as [number, number, number, number];
    address = `${address.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const head = readGroups(halves[0]!);
  const rest = halves.length === 2 ? readGroups(halves[1]!) : [];
  if (!head || !rest) return undefined;
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  return [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...rest];
}

function readGroups(text: string): number[] | undefined {
  if (text === "") return [];
  const groups = text.split(":");
  if (!groups.every((group) => HEX_GROUP.test(group))) return undefined;
  return groups.map((group) => parseInt(group, 16));
}

function isIpv4Mapped(groups: number[]): boolean {
  return groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
}

function maskGroups(groups: number[], prefix: number): number[] {
  return groups.map((group, index) => {
    const bits = Math.max(0, Math.min(16, prefix - index * 16));
    return bits === 0 ? 0 : group & ((0xffff << (16 - bits)) & 0xffff);
  });
}

/** RFC 5952 §4: lowercase, no leading zeros, the longest run (≥ 2) of zero groups as `::`. */
function formatIpv6(groups: number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length++;
    if (length > bestLength) [bestStart, bestLength] = [start, length];
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}
