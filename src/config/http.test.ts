import { describe, expect, it } from "vitest";
import { parseCount, parseMethods } from "./http.ts";

const at = { source: "ROUTES", path: "[0].methods" };
const countAt = { source: "ROUTES", path: "[0].count" };

describe("parseMethods", () => {
  it("Should uppercase method names", () => expect(parseMethods(["post", "Put", "DELETE"], at)).toEqual(["POST", "PUT", "DELETE"]));

  it.each([
    [[], 'ROUTES[0].methods: expected a non-empty list of methods, e.g. ["POST"], got []'],
    ["POST", 'ROUTES[0].methods: expected a non-empty list of methods, e.g. ["POST"], got "POST"'],
    [["GET", "FETCH"], 'ROUTES[0].methods[1]: unknown method "FETCH" (expected one of GET, HEAD, POST, PUT, DELETE, CONNECT, OPTIONS, TRACE, PATCH)'],
    [[7], "ROUTES[0].methods[0]: unknown method 7 (expected one of GET, HEAD, POST, PUT, DELETE, CONNECT, OPTIONS, TRACE, PATCH)"],
    [["get", "GET"], 'ROUTES[0].methods[1]: duplicate method "GET"'],
  ])("Should refuse %j", (value, message) => expect(() => parseMethods(value, at)).toThrow(message));
});

describe("parseCount", () => {
  it("Should read all, or a list of status codes", () => {
    expect(parseCount("all", countAt)).toBe("all");
    expect(parseCount([401, 403], countAt)).toEqual([401, 403]);
  });

  it.each([
    [[], 'ROUTES[0].count: expected a non-empty list of status codes, e.g. [401], or "all", got []'],
    [401, 'ROUTES[0].count: expected a non-empty list of status codes, e.g. [401], or "all", got 401'],
    [[401, 600], "ROUTES[0].count[1]: invalid value 600 (expected an integer from 100 to 599)"],
    [[4.5], "ROUTES[0].count[0]: invalid value 4.5 (expected an integer from 100 to 599)"],
    [[429, 429], "ROUTES[0].count[1]: duplicate status code 429"],
  ])("Should refuse %j", (value, message) => expect(() => parseCount(value, countAt)).toThrow(message));
});
