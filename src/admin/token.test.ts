import { describe, expect, it } from "vitest";
import { bearerToken, sameToken } from "./token.ts";

describe("sameToken", () => {
  const token = "adm1n-t0ken-0123456789";

  it("Should accept only the token itself, refusing one wrong character wherever it is", () => {
    expect(sameToken(token, token)).toBe(true);
    for (const at of [0, token.length >> 1, token.length - 1]) {
      const wrong = `${token.slice(0, at)}${token[at] === "x" ? "y" : "x"}${token.slice(at + 1)}`;
      expect(sameToken(wrong, token), `wrong at ${at}`).toBe(false);
    }
  });

  it("Should refuse a prefix, an extension or an empty guess of the token", () => {
    for (const guess of [token.slice(0, -1), `${token}0`, `${token}${token}`, ""]) expect(sameToken(guess, token), guess).toBe(false);
  });
});

describe("bearerToken", () => {
  it("Should read the token of a Bearer header, the scheme in any case (RFC 9110 §11.1)", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer abc")).toBe("abc");
    expect(bearerToken("BEARER  abc ")).toBe("abc");
  });

  it("Should read no token from another scheme, a header without one, or one followed by more", () => {
    for (const header of [undefined, "Basic abc", "Bearer", "Bearer abc junk", "Bearerabc"]) expect(bearerToken(header), String(header)).toBeUndefined();
  });
});
