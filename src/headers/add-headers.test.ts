import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { addHeaders } from "./add-headers.ts";

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
});
