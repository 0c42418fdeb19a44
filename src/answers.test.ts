import { describe, expect, it } from "vitest";
import { problemResponse } from "./answers.ts";

const answer = async (accept: string | undefined) => {
  const res = problemResponse(429, 'Rate limit "default" exceeded; retry after 18 s.', accept, [["Retry-After", "18"]]);
  return { type: res.headers.get("content-type"), retryAfter: res.headers.get("retry-after"), body: await res.text() };
};

describe("problemResponse", () => {
  it("Should answer plain text to a client that does not ask for JSON, curl's */* included", async () => {
    for (const accept of [undefined, "*/*", "text/html,application/xhtml+xml,*/*;q=0.8", "application/json;q=0, text/plain"]) {
      expect(await answer(accept), String(accept)).toEqual({ type: "text/plain; charset=utf-8", retryAfter: "18", body: "Too many requests" });
    }
  });

  it("Should answer RFC 9457 problem details to a client that asks for any JSON type", async () => {
    for (const accept of ["application/json", "text/html, application/problem+json;q=0.9", "application/vnd.api+JSON"]) {
      const res = await answer(accept);
      expect(res.type, accept).toBe("application/problem+json");
      expect(JSON.parse(res.body)).toMatchObject({ status: 429, title: "Too Many Requests", detail: 'Rate limit "default" exceeded; retry after 18 s.' });
    }
  });
});
