import { describe, expect, it } from "vitest";
import { methodOverrides } from "./method-override.ts";

const headers = (init: Record<string, string>) => new Headers(init);

describe("methodOverrides", () => {
  it("Should read the method a POST names in X-HTTP-Method-Override, X-HTTP-Method, X-Method-Override or the _method query parameter, in uppercase", () => {
    expect(methodOverrides("POST", headers({ "x-http-method-override": "delete" }), "https://example.com/a")).toEqual(["DELETE"]);
    expect(methodOverrides("POST", headers({ "x-http-method": "PUT" }), "https://example.com/a")).toEqual(["PUT"]);
    expect(methodOverrides("POST", headers({ "x-method-override": "PATCH" }), "https://example.com/a")).toEqual(["PATCH"]);
    expect(methodOverrides("POST", headers({}), "https://example.com/a?page=2&_method=delete")).toEqual(["DELETE"]);
    expect(methodOverrides("post", headers({ "x-http-method-override": "PUT" }), "https://example.com/a?_method=PUT&_method=patch")).toEqual(["PUT", "PATCH"]);
  });

  it("Should read every method of a list, since frameworks differ on which one they take (Express the last)", () => {
    expect(methodOverrides("POST", headers({ "x-http-method-override": "DELETE, put" }), "https://example.com/a")).toEqual(["DELETE", "PUT"]);
  });

  it("Should read none for other methods, for POST itself, or for a value that is no method name", () => {
    expect(methodOverrides("GET", headers({ "x-http-method-override": "DELETE" }), "https://example.com/a?_method=DELETE")).toEqual([]);
    expect(methodOverrides("POST", headers({ "x-http-method-override": "post" }), "https://example.com/a")).toEqual([]);
    expect(methodOverrides("POST", headers({ "x-http-method-override": "DEL ETE" }), "https://example.com/a?_method=")).toEqual([]);
    expect(methodOverrides("POST", headers({}), "https://example.com/a?x_method=DELETE")).toEqual([]);
  });
});
