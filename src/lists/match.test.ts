import { describe, expect, it } from "vitest";
import { parseList } from "../config/lists.ts";
import { compileList } from "./match.ts";

const list = (...entries: string[]) => compileList(parseList(entries, { source: "ALLOW", path: "" }));

describe("compileList", () => {
  it("Should match IPv4 addresses inside a range and a bare address only itself", () => {
    const matcher = list("ip:10.0.0.0/8", "ip:203.0.113.7", "ip:0.0.0.0/0");
    expect(matcher.match("10.255.1.2", undefined, undefined)).toBe(true);
    expect(list("ip:10.0.0.0/8", "ip:203.0.113.7").match("11.0.0.1", undefined, undefined)).toBe(false);
    expect(list("ip:203.0.113.7").match("203.0.113.8", undefined, undefined)).toBe(false);
    expect(matcher.match("255.255.255.255", undefined, undefined)).toBe(true);
  });

  it("Should treat an IPv4-mapped client as IPv4, and a mapped entry as an IPv4 range", () => {
    expect(list("ip:192.0.2.0/24").match("::ffff:192.0.2.9", undefined, undefined)).toBe(true);
    expect(list("ip:::ffff:192.0.2.0/120").match("192.0.2.9", undefined, undefined)).toBe(true);
  });

  it("Should match IPv6 ranges whatever the spelling of the client's address", () => {
    const matcher = list("ip:2001:db8:abcd::/48", "ip:2001:db8::7");
    expect(matcher.match("2001:DB8:ABCD:1234::1", undefined, undefined)).toBe(true);
    expect(matcher.match("[2001:db8:0:0:0:0:0:7]", undefined, undefined)).toBe(true);
    expect(matcher.match("2001:db8:abce::1", undefined, undefined)).toBe(false);
    expect(list("ip:::/0").match("2001:db8::1", undefined, undefined)).toBe(true);
    expect(list("ip:::/0").match("203.0.113.7", undefined, undefined)).toBe(false);
  });

  it("Should match countries in any case and AS numbers exactly", () => {
    const matcher = list("country:T1", "asn:64496");
    expect(matcher.match(undefined, "t1", undefined)).toBe(true);
    expect(matcher.match(undefined, "DE", 64496)).toBe(true);
    expect(matcher.match(undefined, "DE", 64497)).toBe(false);
  });

  it("Should match nothing for a missing or invalid address, and an empty list nothing at all", () => {
    expect(list("ip:0.0.0.0/0").match(undefined, undefined, undefined)).toBe(false);
    expect(list("ip:0.0.0.0/0").match("not-an-ip", undefined, undefined)).toBe(false);
    expect(list().empty).toBe(true);
    expect(list().match("10.0.0.1", "DE", 1)).toBe(false);
  });

  it("Should find one address among 10,000 entries of several prefix lengths", () => {
    const entries = Array.from({ length: 10_000 }, (_, i) =>
      `ip:10.${i >> 8}.${i & 255}.0/${24 + (i % 3) * 4}`.replace(/\.0\/(28|32)$/, (_, p) => `.${p === "28" ? 16 : 1}/${p}`),
    );
    const matcher = list(...entries);
    expect(matcher.match("10.38.16.200", undefined, undefined)).toBe(true);
    expect(matcher.match("10.38.17.20", undefined, undefined)).toBe(true);
    expect(matcher.match("10.38.17.33", undefined, undefined)).toBe(false);
    expect(matcher.match("10.38.18.1", undefined, undefined)).toBe(true);
    expect(matcher.match("10.38.18.2", undefined, undefined)).toBe(false);
    expect(matcher.match("11.0.0.1", undefined, undefined)).toBe(false);
  });
});
