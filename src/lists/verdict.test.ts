import { describe, expect, it } from "vitest";
import { parseList } from "../config/lists.ts";
import { compileLevel, listVerdict } from "./verdict.ts";

const level = (allow: string[], deny: string[]) =>
  compileLevel({ allow: parseList(allow, { source: "ALLOW", path: "" }), deny: parseList(deny, { source: "DENY", path: "" }) });
const nothing = level([], []);

describe("listVerdict", () => {
  it("Should leave the decision to the rules when no list names the client", () => {
    expect(listVerdict([nothing, nothing], { ip: "203.0.113.7" })).toBeUndefined();
    expect(listVerdict([level(["ip:10.0.0.0/8"], ["country:T1"])], { ip: "203.0.113.7", country: "DE" })).toBeUndefined();
  });

  it("Should deny a client that one level both allows and denies", () => {
    expect(listVerdict([level(["ip:10.0.0.0/8"], ["ip:10.1.0.0/16"])], { ip: "10.1.2.3" })).toBe("deny");
    expect(listVerdict([level(["ip:10.0.0.0/8"], ["ip:10.1.0.0/16"])], { ip: "10.2.2.3" })).toBe("allow");
  });

  it("Should let the route's own lists decide before the global ones", () => {
    const global = level([], ["country:CN"]);
    const office = level(["ip:198.51.100.0/24"], []);
    expect(listVerdict([office, global], { ip: "198.51.100.4", country: "CN" })).toBe("allow");
    expect(listVerdict([nothing, global], { ip: "198.51.100.4", country: "CN" })).toBe("deny");
    expect(listVerdict([level([], ["asn:64496"]), level(["asn:64496"], [])], { asn: 64496 })).toBe("deny");
  });

  it("Should match no ip entry when the address is missing or invalid, and still match country and AS number", () => {
    const lists = [level(["ip:0.0.0.0/0"], ["asn:64496"])];
    expect(listVerdict(lists, { ip: "garbage" })).toBeUndefined();
    expect(listVerdict(lists, { asn: 64496 })).toBe("deny");
  });
});
