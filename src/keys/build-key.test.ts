import { describe, expect, it } from "vitest";
import { buildKey } from "./build-key.ts";

describe("buildKey", () => {
  it("Should put the client in braces after the prefix and the algorithm tag", () => {
    expect(buildKey({ prefix: "rate", tag: "fixed", client: "203.0.113.7", scope: "" })).toBe("rate:fixed:{203.0.113.7}");
  });

  it("Should append the scope only when it is not empty", () => {
    expect(buildKey({ prefix: "rate", tag: "sliding", client: "c", scope: "api" })).toBe("rate:sliding:{c}:api");
  });

  it("Should append the rule name after the scope when one is given", () => {
    expect(buildKey({ prefix: "rl", tag: "gcra", client: "2001:db8::/64", scope: "api", rule: "hourly" })).toBe("rl:gcra:{2001:db8::/64}:api:hourly");
    expect(buildKey({ prefix: "rl", tag: "gcra", client: "c", scope: "", rule: "hourly" })).toBe("rl:gcra:{c}:hourly");
  });

  it("Should put the route in the hash tag and the client after it when the route is the tag", () => {
    expect(buildKey({ prefix: "rate", tag: "fixed", client: "203.0.113.7", scope: "api", rule: "per-ip", hashTag: "route" })).toBe(
      "rate:fixed:{route:api}:203.0.113.7:per-ip",
    );
    expect(buildKey({ prefix: "rate", tag: "list", client: "key:ab12", scope: "api", hashTag: "route" })).toBe("rate:list:{route:api}:key:ab12");
  });

  it("Should refuse a client that would break or move the hash tag", () => {
    for (const client of ["", "a}b", "{a"]) {
      expect(() => buildKey({ prefix: "rate", tag: "fixed", client, scope: "" })).toThrow(RangeError);
      expect(() => buildKey({ prefix: "rate", tag: "fixed", client, scope: "api", hashTag: "route" })).toThrow(RangeError);
    }
  });
});
