import { describe, expect, it } from "vitest";
import { adminRequest } from "./client.ts";

describe("the request each command makes", () => {
  it("Should GET status and POST reset with the client or key and the route in the query, encoded", () => {
    expect(adminRequest({ name: "status", target: { by: "client", value: "2001:db8::1" } })).toEqual({
      method: "GET",
      path: "/__ratewall/status?client=2001%3Adb8%3A%3A1",
    });
    expect(adminRequest({ name: "reset", target: { by: "key", value: "a b&c" }, route: "api v1" })).toEqual({
      method: "POST",
      path: "/__ratewall/reset?key=a+b%26c&route=api+v1",
    });
    expect(adminRequest({ name: "config" })).toEqual({ method: "GET", path: "/__ratewall/config" });
  });
});
