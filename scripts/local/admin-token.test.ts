import { describe, expect, it } from "vitest";
import { localAdminToken } from "./admin-token.ts";

describe("the admin token npm start gives the Worker", () => {
  it("Should generate 32 random bytes in hex when ADMIN_TOKEN is unset or empty, a new one each time", () => {
    const first = localAdminToken({});
    expect(first).toEqual({ token: expect.stringMatching(/^[0-9a-f]{64}$/), generated: true });
    expect(localAdminToken({ ADMIN_TOKEN: "" }).token).not.toBe(first.token);
  });

  it("Should keep a user's token of 32 characters or more", () => {
    expect(localAdminToken({ ADMIN_TOKEN: "x".repeat(32) })).toEqual({ token: "x".repeat(32), generated: false });
  });

  it("Should refuse a shorter token, saying how long it is, however short, rather than replace it with one of its own", () => {
    expect(() => localAdminToken({ ADMIN_TOKEN: "x".repeat(31) })).toThrowError("ADMIN_TOKEN: must be at least 32 characters (got 31)");
    expect(() => localAdminToken({ ADMIN_TOKEN: "x" })).toThrowError("ADMIN_TOKEN: must be at least 32 characters (got 1)");
  });
});
