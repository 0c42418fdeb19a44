import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

describe("the Worker", () => {
  it("forwards a request to the origin and returns its answer", async () => {
    const res = await exports.default.fetch("https://example.com/hello?x=1", { headers: { "cf-connecting-ip": "203.0.113.7" } });
    expect(res.status).toBe(200);
    const echoed = (await res.json()) as { method: string; url: string };
    expect(echoed).toMatchObject({ method: "GET", url: "/hello?x=1" });
  });
});
