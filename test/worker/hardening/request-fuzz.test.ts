import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { testApp } from "../helpers.ts";

// Hostile requests against the real stack (shim, Redis, echo origin): any method, path, host,
// client address and forwarding header. The Worker answers each one, as the origin or as a 429,
// and never with its own error.
const hostile = fc.constantFrom("%", "%zz", "%2F", "%5C", "%00", "..", ".", "//", "\\", ";", "%2e%2e", "%C0%AF", "%ff%fe", "{", "}", "*", "?", "#");
const segment = fc.oneof(fc.webSegment(), hostile, fc.string({ unit: "grapheme", maxLength: 8 }).map(encodeURIComponent));
const request = fc.record({
  method: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"),
  host: fc.oneof(fc.domain(), fc.constantFrom("EXAMPLE.com.", "example.com:8443", "127.0.0.1", "[::1]", "xn--nxasmq6b.example")),
  path: fc.array(segment, { maxLength: 8 }).map((parts) => `/${parts.join("/")}`),
  query: fc.oneof(
    fc.constant(""),
    fc.webQueryParameters().map((q) => `?${q}`),
  ),
  ip: fc.oneof(
    fc.ipV4(),
    fc.ipV6(),
    fc.ipV4Extended(),
    fc.string({ maxLength: 60 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")),
  ),
  headers: fc.dictionary(
    fc.constantFrom(
      "x-forwarded-for",
      "true-client-ip",
      "forwarded",
      "x-real-ip",
      "x-api-key",
      "accept",
      "connection",
      "upgrade",
      "content-type",
      "upstash-encoding",
    ),
    fc.string({ maxLength: 200 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")),
  ),
});

describe("hostile requests against the real stack", () => {
  it("Should answer every one with the origin's answer or a 429, never an error of its own", async () => {
    const t = testApp({
      RATE_LIMIT: "20/60s",
      ROUTES: JSON.stringify([
        { pattern: "*/api/*", rules: ["5/1s", "50/1h"], key: "header:x-api-key" },
        { pattern: "example.com/login*", rules: "3/60s", algorithm: "sliding-log" },
        { pattern: "*/static/*", unlimited: true },
      ]),
    });
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async ({ method, host, path, query, ip, headers }) => {
        const res = await t.request(`https://${host}${path}${query}`, { method, ip, headers });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect([200, 429]).toContain(res.status);
        if (res.status === 200 && method !== "HEAD") expect(JSON.parse(await res.text())).toMatchObject({ method });
        else await res.body?.cancel();
      }),
      { numRuns: 1000, seed: 6 },
    );
    expect(t.logs.filter((entry) => entry.level === "error")).toEqual([]);
    console.log(`answers by status: ${JSON.stringify(Object.fromEntries(statuses))}`);
    expect(statuses.get(200)).toBeGreaterThan(100);
  }, 60_000);
});
