import { describe, expect, it } from "vitest";
import { parseKeySource } from "./key-source.ts";

const at = { source: "ROUTES", path: "[0].key" };

describe("parseKeySource", () => {
  it.each([
    ["ip", { kind: "ip" }],
    ["header:X-Api-Key", { kind: "header", name: "x-api-key" }],
    ["cookie:SessionId", { kind: "cookie", name: "SessionId" }],
    ["query:filter[user]", { kind: "query", name: "filter[user]" }],
    ["cf:asn", { kind: "cf", field: "asn" }],
    ["cf:country", { kind: "cf", field: "country" }],
  ])("Should read %s", (value, source) => expect(parseKeySource(value, at)).toEqual(source));

  it("Should read a list of 2 to 4 distinct sources as one composite key", () => {
    expect(parseKeySource(["ip", "header:User-Agent"], at)).toEqual({ kind: "composite", parts: [{ kind: "ip" }, { kind: "header", name: "user-agent" }] });
  });

  it("Should read a query parameter name of up to 128 characters, and refuse a longer one", () => {
    expect(parseKeySource(`query:${"q".repeat(128)}`, at)).toEqual({ kind: "query", name: "q".repeat(128) });
    expect(() => parseKeySource(`query:${"q".repeat(129)}`, at)).toThrow(`ROUTES[0].key: invalid key source "query:${"q".repeat(129)}"`);
  });

  it.each([
    ["cookie:", 'ROUTES[0].key: invalid key source "cookie:" (a cookie name is a token: letters, digits and !#$%&\'*+-.^_`|~)'],
    ["header:bad name", 'ROUTES[0].key: invalid key source "header:bad name" (a header name is a token: letters, digits and !#$%&\'*+-.^_`|~)'],
    ["query:a&b", 'ROUTES[0].key: invalid key source "query:a&b" (a query parameter name has 1 to 128 letters, digits, "_", ".", "~", "-", "[" or "]")'],
    ["cf:city", 'ROUTES[0].key: invalid key source "cf:city" (expected "cf:asn" or "cf:country")'],
    [
      "session",
      'ROUTES[0].key: invalid key source "session" (expected "ip", "header:<name>", "cookie:<name>", "query:<name>", "cf:asn", "cf:country", or a list of 2 to 4 of these)',
    ],
    [["ip"], 'ROUTES[0].key: a composite key has 2 to 4 parts, got 1 in ["ip"]'],
    [["ip", "cf:asn", "cf:country", "header:a", "header:b"], "ROUTES[0].key: a composite key has 2 to 4 parts, got 5"],
    [["ip", ["cf:asn", "cf:country"]], 'ROUTES[0].key[1]: composite keys do not nest, got ["cf:asn","cf:country"]'],
    [["header:X-A", "header:x-a"], 'ROUTES[0].key[1]: duplicate key part "header:x-a"'],
    [["ip", "cookie:"], 'ROUTES[0].key[1]: invalid key source "cookie:"'],
  ])("Should refuse %j, naming the path and the value", (value, message) => expect(() => parseKeySource(value, at)).toThrow(message));
});
