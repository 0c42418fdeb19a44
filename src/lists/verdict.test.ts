import { describe, expect, it } from "vitest";
import { parseList } from "../config/lists.ts";
import { parseIp } from "../keys/ip.ts";
import { compileLevel, listVerdict, networkVerdict } from "./verdict.ts";

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

describe("networkVerdict", () => {
  const network = parseIp("2001:db8:0:1::")!;

  it("Should give the verdict of an entry that holds the whole network, the network itself included", () => {
    expect(networkVerdict([level([], ["ip:2001:db8:0:1::/64"])], network, 64)).toBe("deny");
    expect(networkVerdict([level(["ip:2001:db8::/48"], [])], network, 64)).toBe("allow");
  });

  it("Should deny a network that a deny holds whole, even where an allow inside it names some of its addresses", () => {
    expect(networkVerdict([level(["ip:2001:db8:0:1::/80"], ["ip:2001:db8::/48"])], network, 64)).toBe("deny");
  });

  it("Should give no verdict when an entry decides for only some of the network's addresses", () => {
    expect(networkVerdict([level(["ip:2001:db8:0:1::/80"], [])], network, 64)).toBeUndefined();
    expect(networkVerdict([level([], [])], network, 64)).toBeUndefined();
  });
});
