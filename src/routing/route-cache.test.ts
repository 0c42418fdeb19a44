import { describe, expect, it } from "vitest";
import { compileRoutes } from "./match.ts";
import { memoizeRoutes } from "./route-cache.ts";

const routes = [
  { pattern: "*/login*", id: "login", methods: ["POST"] },
  { pattern: "api.example.com/v1/*", id: "v1" },
];

/** The memoized matcher, and how many times it parsed a URL (asked the matcher underneath). */
function counted(capacity?: number) {
  const match = compileRoutes(routes);
  let lookups = 0;
  const route = memoizeRoutes((url, method) => {
    lookups++;
    return match(url, method);
  }, capacity);
  return { route, lookups: () => lookups };
}

describe("memoizeRoutes", () => {
  it("Should give the matcher's route for a URL, and look a repeated URL up once whatever its query", () => {
    const { route, lookups } = counted();
    expect(route("https://api.example.com/v1/users?page=1", "GET")?.id).toBe("v1");
    expect(route("https://api.example.com/v1/users?page=2", "GET")?.id).toBe("v1");
    expect(route("https://api.example.com/v1/users#top", "GET")?.id).toBe("v1");
    expect(lookups()).toBe(1);
  });

  it("Should remember per method and remember that nothing matched", () => {
    const { route, lookups } = counted();
    expect(route("https://example.com/login", "POST")?.id).toBe("login");
    expect(route("https://example.com/login", "GET")).toBeUndefined();
    expect(route("https://example.com/login", "GET")).toBeUndefined();
    expect(lookups()).toBe(2);
  });

  it("Should keep answering as the matcher does once more URLs than its capacity were seen", () => {
    const { route } = counted(2);
    const urls = ["https://api.example.com/v1/a", "https://example.com/other", "https://example.com/LOGIN/%2e%2e/login", "https://api.example.com/v1/b"];
    const expected = ["v1", undefined, "login", "v1"];
    for (let pass = 0; pass < 3; pass++) expect(urls.map((url) => route(url, "POST")?.id)).toEqual(expected);
  });
});
