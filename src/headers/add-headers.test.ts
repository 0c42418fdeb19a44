import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { addHeaders, mergeHeaders } from "./add-headers.ts";

function appAnswering(answer: () => Response) {
  const app = new Hono();
  app.use(async (c, next) => {
    await next();
    addHeaders(c, [
      ["RateLimit-Policy", '"default";q=2;w=10'],
      ["RateLimit", '"default";r=1;t=10'],
    ]);
  });
  app.all("*", () => answer());
  return app;
}

describe("addHeaders", () => {
  it("Should add every header to the handler's answer, keeping its status, headers and body", async () => {
    const res = await appAnswering(() => new Response("hello", { status: 201, headers: { "x-origin": "1" } })).request("https://example.com/");
    expect(res.status).toBe(201);
    expect(await res.text()).toBe("hello");
    expect(res.headers.get("x-origin")).toBe("1");
    expect(res.headers.get("ratelimit-policy")).toBe('"default";q=2;w=10');
    expect(res.headers.get("ratelimit")).toBe('"default";r=1;t=10');
  });

  it("Should add every header to an answer whose headers are immutable (Response.redirect)", async () => {
    const res = await appAnswering(() => Response.redirect("https://example.com/elsewhere", 302)).request("https://example.com/");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://example.com/elsewhere");
    expect(res.headers.get("ratelimit")).toBe('"default";r=1;t=10');
  });

  it("Should list the answer's own RateLimit items first, as an origin that limits too gives them", async () => {
    const res = await appAnswering(() => new Response("hi", { headers: { RateLimit: '"origin";r=3;t=5' } })).request("https://example.com/");
    expect(res.headers.get("ratelimit")).toBe('"origin";r=3;t=5, "default";r=1;t=10');
    expect(res.headers.get("ratelimit-policy")).toBe('"default";q=2;w=10');
  });
});

describe("mergeHeaders", () => {
  const legacy = (remaining: string): Array<[string, string]> => [
    ["X-RateLimit-Limit", "100"],
    ["X-RateLimit-Remaining", remaining],
    ["X-RateLimit-Reset", "1700000060"],
  ];

  it("Should keep the answer's legacy headers, all of them and none of ours, when they show as little left as ours or less", () => {
    expect(mergeHeaders(new Headers({ "x-ratelimit-limit": "5", "x-ratelimit-remaining": "2", "x-ratelimit-reset": "1700000010" }), legacy("2"))).toEqual([]);
    expect(mergeHeaders(new Headers({ "x-ratelimit-remaining": "0" }), legacy("2"))).toEqual([]);
  });

  it("Should give all three of ours when ours show less left, or the answer's Remaining is no count", () => {
    for (const remaining of ["3", "many", "", "-1"]) {
      const answer = new Headers({ "x-ratelimit-limit": "10", "x-ratelimit-remaining": remaining });
      expect(mergeHeaders(answer, legacy("2")), remaining).toEqual(legacy("2"));
    }
    expect(mergeHeaders(new Headers({ "x-ratelimit-limit": "10" }), legacy("2"))).toEqual(legacy("2"));
  });

  it("Should keep the answer's own Retry-After, which holds one value, rather than list ours after it", () => {
    expect(mergeHeaders(new Headers({ "retry-after": "30" }), [["Retry-After", "5"]])).toEqual([]);
    expect(mergeHeaders(new Headers(), [["Retry-After", "5"]])).toEqual([["Retry-After", "5"]]);
  });

  it("Should take an empty RateLimit of the answer for none, so that the list does not open with a comma", () => {
    expect(mergeHeaders(new Headers({ ratelimit: " " }), [["RateLimit", '"default";r=1;t=10']])).toEqual([["RateLimit", '"default";r=1;t=10']]);
  });
});
