import { describe, expect, it } from "vitest";
import { formatListEntry, parseEntries, parseList } from "./lists.ts";

const deny = { source: "DENY", path: "" };

describe("parseList", () => {
  it("Should read JSON text and structured lists alike, normalizing every kind of entry", () => {
    const entries = ["ip:10.0.0.0/8", "ip:203.0.113.7", "ip:2001:db8::/32", "ip:::ffff:192.0.2.0/120", "country:de", "country:T1", "asn:13335"];
    const expected = [
      { kind: "ipv4", network: 0x0a000000, prefix: 8 },
      { kind: "ipv4", network: 0xcb007107, prefix: 32 },
      { kind: "ipv6", network: 0x20010db8n << 96n, prefix: 32 },
      { kind: "ipv4", network: 0xc0000200, prefix: 24 },
      { kind: "country", code: "DE" },
      { kind: "country", code: "T1" },
      { kind: "asn", asn: 13335 },
    ];
    expect(parseList(JSON.stringify(entries), deny)).toEqual(expected);
    expect(parseList(entries, deny)).toEqual(expected);
  });

  it("Should read every AS number from 1 to 4294967295 (32 bits, RFC 6793)", () => {
    expect(parseList(["asn:1", "asn:4294967295"], deny)).toEqual([
      { kind: "asn", asn: 1 },
      { kind: "asn", asn: 4_294_967_295 },
    ]);
  });

  it("Should read a bare IPv6 address as a /128 and an empty list as empty", () => {
    expect(parseList(["ip:2001:db8::1"], deny)).toEqual([{ kind: "ipv6", network: (0x20010db8n << 96n) | 1n, prefix: 128 }]);
    expect(parseList("[]", deny)).toEqual([]);
  });

  it("Should read a bare IPv4-mapped IPv6 address as the IPv4 address", () => {
    expect(parseList(["ip:::ffff:192.0.2.1"], deny)).toEqual([{ kind: "ipv4", network: 0xc0000201, prefix: 32 }]);
  });

  it.each([
    [["ip:10.0.0.0/8", "asn:1", "country:XX", "ip:10.0.0.0/33"], 'DENY[3]: invalid entry "ip:10.0.0.0/33" (prefix length must be 0 to 32 for IPv4)'],
    [["ip:2001:db8::/129"], 'DENY[0]: invalid entry "ip:2001:db8::/129" (prefix length must be 0 to 128 for IPv6)'],
    [["ip:10.0.0.1/8"], 'DENY[0]: invalid entry "ip:10.0.0.1/8" (host bits set; the network is 10.0.0.0/8)'],
    [["ip:2001:db8::1/64"], 'DENY[0]: invalid entry "ip:2001:db8::1/64" (host bits set; the network is 2001:db8::/64)'],
    [["ip:::ffff:10.0.0.0/8"], 'DENY[0]: invalid entry "ip:::ffff:10.0.0.0/8" (prefix length must be 96 to 128 for an IPv4-mapped IPv6 address)'],
    [["ip:10.0.0.0/"], 'DENY[0]: invalid entry "ip:10.0.0.0/" (prefix length must be 0 to 32 for IPv4)'],
    [["ip:010.0.0.1"], 'DENY[0]: invalid entry "ip:010.0.0.1" (not an IPv4 or IPv6 address)'],
    [["ip:example.com"], 'DENY[0]: invalid entry "ip:example.com" (not an IPv4 or IPv6 address)'],
    [["country:UK"], 'DENY[0]: invalid entry "country:UK" (expected an ISO 3166-1 alpha-2 code such as "DE" or "GB", "T1" for Tor or "XX" for unknown)'],
    [["asn:0"], 'DENY[0]: invalid entry "asn:0" (expected an AS number from 1 to 4294967295, digits only)'],
    [["asn:AS13335"], 'DENY[0]: invalid entry "asn:AS13335" (expected an AS number from 1 to 4294967295, digits only)'],
    [["asn:4294967296"], 'DENY[0]: invalid entry "asn:4294967296" (expected an AS number from 1 to 4294967295, digits only)'],
    [["10.0.0.1"], 'DENY[0]: invalid entry "10.0.0.1" (expected "ip:<address or CIDR>", "country:<code>" or "asn:<number>")'],
    [[42], 'DENY[0]: invalid entry 42 (expected "ip:<address or CIDR>", "country:<code>" or "asn:<number>")'],
    ["ip:10.0.0.1", 'DENY: invalid JSON "ip:10.0.0.1" (expected a list such as ["ip:192.0.2.0/24", "country:T1", "asn:64496"])'],
    [{ ip: "10.0.0.1" }, 'DENY: expected a JSON list of entries, got {"ip":"10.0.0.1"}'],
  ])("Should refuse %j, naming the variable, the path and the value", (value, message) => {
    expect(() => parseList(value, deny)).toThrow(message);
  });
});

describe("parseEntries", () => {
  it("Should require a list already structured, as a route's allow or deny is", () => {
    expect(() => parseEntries("ip:10.0.0.1", { source: "ROUTES", path: "[0].allow" })).toThrow(
      'ROUTES[0].allow: expected a list of entries such as ["ip:192.0.2.0/24"], got "ip:10.0.0.1"',
    );
  });
});

describe("formatListEntry", () => {
  it("Should write every entry as the settings would, in normal form, so that reading it back gives the same entry", () => {
    const written = [
      "ip:10.0.0.0/8",
      "ip:203.0.113.7",
      "ip:2001:db8::/32",
      "ip:2001:db8::1",
      "ip:::ffff:192.0.2.0/120",
      "ip:0.0.0.0/0",
      "country:de",
      "asn:13335",
    ];
    const entries = parseList(written, deny);
    const formatted = entries.map(formatListEntry);
    expect(formatted).toEqual([
      "ip:10.0.0.0/8",
      "ip:203.0.113.7",
      "ip:2001:db8::/32",
      "ip:2001:db8::1",
      "ip:192.0.2.0/24",
      "ip:0.0.0.0/0",
      "country:DE",
      "asn:13335",
    ]);
    expect(parseList(formatted, deny)).toEqual(entries);
  });
});
