import { describe, expect, it } from "vitest";
import { testApp, uniqueIpv4 } from "../helpers.ts";

// Deletes are limited to 1 an hour; everything else shares a lenient default. Rails, Symfony,
// Laravel and Express's method-override run a POST that names DELETE as a DELETE.
const vars = {
  RATE_LIMIT: "1000/60s",
  ROUTES: JSON.stringify([{ pattern: "example.com/v1/items/*", name: "deletes", methods: ["DELETE"], rules: "1/1h" }]),
};

function origin() {
  const seen: string[] = [];
  return {
    seen,
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      seen.push(new Request(input, init).method);
      return new Response("origin");
    },
  };
}

describe("method overrides", () => {
  it.each<{ headers: Record<string, string>; path: string }>([
    { headers: { "x-http-method-override": "DELETE" }, path: "/v1/items/1" },
    { headers: { "x-http-method": "delete" }, path: "/v1/items/1" },
    { headers: { "x-method-override": "PUT, DELETE" }, path: "/v1/items/1" },
    { headers: {}, path: "/v1/items/1?_method=delete" },
  ])("Should refuse with 400 a POST whose override ($headers $path) meets another route than POST does, never forwarding it", async ({ headers, path }) => {
    const { seen, fetch } = origin();
    const t = testApp(vars, { originFetch: fetch });
    const refused = await t.request(path, { method: "POST", ip: uniqueIpv4(), headers: { ...headers, accept: "application/json" } });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ status: 400, detail: expect.stringContaining('asks to be run as DELETE, which meets route "deletes"') });
    expect(seen).toEqual([]);
  });

  it("Should forward a POST whose override meets the same route, and count a real DELETE on its own route", async () => {
    const { seen, fetch } = origin();
    const t = testApp(vars, { originFetch: fetch });
    const ip = uniqueIpv4();
    const patch = await t.request("/v1/items/1", { method: "POST", ip, headers: { "x-http-method-override": "PATCH" } });
    expect(patch.status).toBe(200);
    expect(patch.headers.get("ratelimit-policy")).toBe('"default";q=1000;w=60');
    expect((await t.request("/v1/items/1", { method: "DELETE", ip })).status).toBe(200);
    expect((await t.request("/v1/items/1", { method: "DELETE", ip })).status).toBe(429);
    expect(seen).toEqual(["POST", "DELETE"]);
  });
});
