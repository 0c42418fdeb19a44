import { describe, expect, it } from "vitest";
import type { KeySource, RouteRule } from "../config/types.ts";
import { countsClient, identifyClients, ruleSources } from "./rule-sources.ts";

const rule = (name: string, key?: KeySource): RouteRule => ({ name, algorithm: "fixed-window", limit: 1, windowMs: 1_000, ...(key ? { key } : {}) });
const ip: KeySource = { kind: "ip" };
const apiKey: KeySource = { kind: "header", name: "x-api-key" };
const options = (key: KeySource) => ({ key, ipv6Subnet: 64, trustedProxies: 0 });

describe("ruleSources", () => {
  it("Should give rules without a key the route's, and list each distinct source once", () => {
    expect(
      ruleSources({ key: ip, rules: [rule("a"), rule("b", apiKey), rule("c", { kind: "ip" }), rule("d", { kind: "header", name: "x-api-key" })] }),
    ).toEqual({ sources: [ip, apiKey], ofRule: [0, 1, 0, 1] });
  });

  it("Should make a route whose every rule names one other key a single-key route on that key", () => {
    expect(ruleSources({ key: ip, rules: [rule("a", apiKey), rule("b", apiKey)] })).toEqual({ sources: [apiKey], ofRule: [0, 0] });
    expect(ruleSources({ key: apiKey, rules: [] })).toEqual({ sources: [apiKey], ofRule: [] });
  });
});

describe("identifyClients", () => {
  it("Should identify each distinct source once and give every rule its client, falling back to the address for a missing key", async () => {
    const perRule = { sources: [options(ip), options(apiKey)], ofRule: [0, 1, 0] };
    const withKey = await identifyClients(new Headers({ "cf-connecting-ip": "203.0.113.7", "x-api-key": "sk_1" }), options(ip), perRule, {});
    expect(withKey).toEqual({ client: "203.0.113.7", clients: ["203.0.113.7", expect.stringMatching(/^key:[0-9a-f]{32}$/), "203.0.113.7"], fallbacks: [] });
    const withoutKey = await identifyClients(new Headers({ "cf-connecting-ip": "203.0.113.7" }), options(ip), perRule, {});
    expect(withoutKey).toEqual({
      client: "203.0.113.7",
      clients: ["203.0.113.7", "203.0.113.7", "203.0.113.7"],
      fallbacks: [{ client: "203.0.113.7", warning: "missing-key" }],
    });
  });

  it("Should identify a single-key route's request once, with no per-rule clients", async () => {
    expect(await identifyClients(new Headers({ "cf-connecting-ip": "203.0.113.7" }), options(ip), undefined, {})).toEqual({
      client: "203.0.113.7",
      fallbacks: [],
    });
  });
});

describe("countsClient", () => {
  it("Should match an identifier to the key sources that produce its kind", () => {
    expect(countsClient(ip, "203.0.113.7")).toBe(true);
    expect(countsClient(ip, "unknown")).toBe(true);
    expect(countsClient(ip, "key:ab")).toBe(false);
    expect(countsClient(apiKey, "key:ab")).toBe(true);
    expect(countsClient(apiKey, "203.0.113.7")).toBe(false);
    expect(countsClient({ kind: "cookie", name: "sid" }, "cookie:ab")).toBe(true);
    expect(countsClient({ kind: "cf", field: "asn" }, "asn:13335")).toBe(true);
    expect(countsClient({ kind: "cf", field: "asn" }, "country:DE")).toBe(false);
    expect(countsClient({ kind: "composite", parts: [ip, apiKey] }, "multi:ab")).toBe(true);
  });
});
