import { describe, expect, it } from "vitest";
import { CONFIG, STATUS } from "./fixtures.ts";
import { formatConfig, formatCopy, formatList, formatLists, formatProblem, formatReset, formatStatus, formatTier } from "./format.ts";
import { table, waitText, windowText } from "./table.ts";

describe("the admin CLI's tables", () => {
  it("Should print a status as a heading and one aligned row per rule, numbers on the right", () => {
    const answer = {
      client: "203.0.113.7",
      route: "default",
      rules: [{ name: "default", algorithm: "fixed-window", limit: 100, windowMs: 60_000, remaining: 97, resetMs: 42_100 }],
    };
    expect(formatStatus(answer)).toBe(
      [
        "client 203.0.113.7 · route default",
        "rule     algorithm     limit  window  remaining  resets in",
        "default  fixed-window    100  1m             97  42.1 s",
      ].join("\n"),
    );
    expect(formatStatus(STATUS)).toBe(
      [
        "client 203.0.113.7 · route api",
        "rule    algorithm       limit  window  remaining  resets in",
        "burst   token-bucket       10  1s              2  800 ms",
        "hourly  sliding-window   1000  1h            997  59 min",
      ].join("\n"),
    );
  });

  it("Should name the client's tier and list entry under a status's heading, since they decide before the rules", () => {
    const rules = [{ name: "hourly", algorithm: "fixed-window", limit: 6, windowMs: 3_600_000, remaining: 6, resetMs: 0 }];
    expect(formatStatus({ client: "c1", route: "api", tier: "pro", list: "deny", listTtlMs: 598_000, rules }).split("\n").slice(0, 2)).toEqual([
      "client c1 · route api · tier pro",
      "on the deny list for another 9 min 58 s: every request is refused (403), whatever the rules say",
    ]);
    expect(formatStatus({ client: "c1", route: "api", list: "allow", listTtlMs: null, rules }).split("\n").slice(0, 2)).toEqual([
      "client c1 · route api",
      "on the allow list until removed: every request is forwarded uncounted, whatever the rules say",
    ]);
    expect(formatStatus({ client: "c1", route: "api", tier: null, staticList: null, list: null, listTtlMs: null, rules }).split("\n")[1]).toMatch(/^rule /);
  });

  it("Should put the settings' list first under a status's heading, since it decides before the dynamic entry", () => {
    const rules = [{ name: "hourly", algorithm: "fixed-window", limit: 6, windowMs: 3_600_000, remaining: 6, resetMs: 0 }];
    expect(formatStatus({ client: "198.51.100.7", route: "api", staticList: "deny", list: "allow", listTtlMs: null, rules }).split("\n").slice(0, 3)).toEqual([
      "client 198.51.100.7 · route api",
      "on the settings' deny list: every request is refused (403), whatever the dynamic lists and the rules say",
      "on the allow list until removed: every request is forwarded uncounted, whatever the rules say",
    ]);
  });

  it("Should say so when a status has no rules, because the route is unlimited", () => {
    expect(formatStatus({ client: "c1", route: "health", rules: [] })).toBe("client c1 · route health\nno rules: the route is unlimited");
  });

  it("Should say that a client's dynamic entry does not apply on an unlimited route, which forwards without reading it", () => {
    expect(formatStatus({ client: "c1", route: "health", staticList: null, list: "deny", listTtlMs: 598_000, rules: [] })).toBe(
      [
        "client c1 · route health",
        "on the deny list for another 9 min 58 s: not applied on this route, which is unlimited and forwards every request (only the settings' lists apply here)",
        "no rules: the route is unlimited",
      ].join("\n"),
    );
  });

  it("Should print a reset as one line with the number of keys deleted", () => {
    expect(formatReset({ client: "203.0.113.7", route: "api", deleted: 2 })).toBe("reset client 203.0.113.7 on route api: deleted 2 Redis keys");
    expect(formatReset({ client: "203.0.113.7", route: "default", deleted: 1 })).toBe("reset client 203.0.113.7 on route default: deleted 1 Redis key");
    expect(formatReset({ client: "c1", route: "default", deleted: 0 })).toBe("reset client c1 on route default: nothing to delete (no counters in Redis)");
  });

  it("Should print the config as dotted settings, lists comma-separated and each tier's rules, then the routes with the default route last, with a column only for what some route sets", () => {
    expect(formatConfig(CONFIG)).toBe(
      [
        "setting           value",
        "redis.url         https://eu1.upstash.io",
        "redis.token       [redacted]",
        "redis.timeoutMs   500",
        "failureMode       open",
        "keyPrefix         rate",
        "headers           draft",
        "ipv6Subnet        64",
        "trustedProxies    0",
        "originTimeoutMs   30000",
        "adminToken        [redacted]",
        "analytics.client  hashed",
        "allow             -",
        "deny              country:T1, ip:2001:db8::/32",
        "future            a, 1",
        "tiers.free        default 10/1m fixed-window",
        "",
        "routes",
        "pattern               name                rules                                                             key               mode     cost  origin                      methods    count  allow",
        "api.example.com/v1/*  api                 burst 10/1s token-bucket burst 20, hourly 1000/1h sliding-window  header:x-api-key  enforce     1  https://origin.example.com  GET, POST  all    ip:192.0.2.0/24",
        "example.com/health    example.com/health  unlimited                                                         ip                shadow      1  -                           -          all    -",
        "example.com/search    example.com/search  by tier (TIERS), default free                                     ip                enforce     1  -                           -          200    -",
        "*/*                   (default)           default 100/1m fixed-window                                       ip                enforce     1  -                           -          all    -",
      ].join("\n"),
    );
  });

  it("Should give a route or rule field the contract does not name a column or a name=value of its own, and leave out the origin column when no route has one", () => {
    const route = {
      pattern: "*/*",
      scope: "",
      rules: [{ name: "default", algorithm: "gcra", limit: 5, windowMs: 1_500, jitter: true }],
      unlimited: false,
      key: "cookie:sid",
      cost: 2,
      mode: "enforce",
      weight: 3,
    };
    expect(formatConfig({ defaultRoute: route, routes: [] })).toBe(
      [
        "setting  value",
        "",
        "routes",
        "pattern  name       rules                              key         mode     cost  weight",
        "*/*      (default)  default 5/1500ms gcra jitter=true  cookie:sid  enforce     2  3",
      ].join("\n"),
    );
  });

  it("Should print an error answer's status, title and detail, with Retry-After when given", () => {
    const problem = (status: number, title: string, detail: string) => JSON.stringify({ type: "about:blank", title, status, detail });
    expect(formatProblem(404, "Not Found", problem(404, "Not Found", 'unknown route "apii" (routes: api, example.com/health)'))).toBe(
      'ratewall admin: 404 Not Found: unknown route "apii" (routes: api, example.com/health)',
    );
    expect(formatProblem(429, "Too Many Requests", problem(429, "Too Many Requests", "too many failed attempts"), "30")).toBe(
      "ratewall admin: 429 Too Many Requests: too many failed attempts (retry after 30 s)",
    );
  });

  it("Should print the retry time of an admin lockout once, as the Worker's detail already names it", () => {
    const body = JSON.stringify({
      type: "about:blank",
      title: "Too Many Requests",
      status: 429,
      detail: "Too many failed attempts from this address; retry after 39 s.",
    });
    expect(formatProblem(429, "Too Many Requests", body, "39")).toBe(
      "ratewall admin: 429 Too Many Requests: Too many failed attempts from this address; retry after 39 s.",
    );
  });

  it("Should fall back to the status text when a problem has no title, and print no detail when it has none", () => {
    expect(formatProblem(502, "Bad Gateway", '{"status":502}')).toBe("ratewall admin: 502 Bad Gateway");
    expect(formatProblem(500, "Internal Server Error", "")).toBe("ratewall admin: 500 Internal Server Error");
  });
});

describe("the admin CLI's layout helpers", () => {
  it("Should pad columns two spaces apart without trailing spaces", () => {
    expect(
      table(
        [{ heading: "a" }, { heading: "n", right: true }, { heading: "last" }],
        [
          ["long", "10", ""],
          ["x", "1", "y"],
        ],
      ),
    ).toBe("a      n  last\nlong  10\nx      1  y");
  });

  it.each([
    [60_000, "1m"],
    [90_000, "90s"],
    [3_600_000, "1h"],
    [86_400_000, "1d"],
    [1_500, "1500ms"],
    [250, "250ms"],
  ])("Should write a %i ms window as %s, as RATE_LIMIT would", (ms, text) => {
    expect(windowText(ms)).toBe(text);
  });

  it.each([
    [0, "now"],
    [800, "800 ms"],
    [42_100, "42.1 s"],
    [59_949, "59.9 s"],
    [59_950, "1 min"],
    [125_000, "2 min 5 s"],
    [3_540_000, "59 min"],
    [7_500_000, "2 h 5 min"],
  ])("Should write a %i ms wait as %s", (ms, text) => {
    expect(waitText(ms)).toBe(text);
  });

  it("Should say what a deny, an allow or a tier now does, on which routes, for how long, and what a removal found", () => {
    expect(formatList({ client: "203.0.113.7", list: "deny", ttlSeconds: 600 })).toBe(
      "denied client 203.0.113.7 for 10m on every route that counts this client (unlimited routes still forward it)",
    );
    expect(formatList({ client: "203.0.113.7", list: "allow", ttlSeconds: null })).toBe(
      "allowed (uncounted) client 203.0.113.7 until removed on every route that counts this client",
    );
    expect(formatList({ client: "203.0.113.7", list: "deny", ttlSeconds: null, was: "allow" })).toBe(
      "denied client 203.0.113.7 until removed on every route that counts this client (unlimited routes still forward it; it was on the allow list: that entry is gone)",
    );
    expect(formatList({ client: "203.0.113.7", list: "deny", ttlSeconds: 600, was: "deny" })).toBe(
      "denied client 203.0.113.7 for 10m on every route that counts this client (unlimited routes still forward it)",
    );
    expect(formatList({ client: "asn:64496", list: "deny", ttlSeconds: null, routes: [] })).toBe(
      "stored a deny entry for client asn:64496 until removed, but no limited route counts this kind of client: it changes nothing until one does (see `config`)",
    );
    expect(formatList({ client: "asn:64496", list: "allow", ttlSeconds: 60, was: "deny", routes: [], fallbackRoutes: [] })).toBe(
      "stored an allow entry for client asn:64496 for 1m, but no limited route counts this kind of client: it changes nothing until one does (see `config`; it was on the deny list: that entry is gone)",
    );
    expect(formatList({ client: "203.0.113.7", list: "deny", ttlSeconds: null, routes: ["default"], fallbackRoutes: ["api", "web"] })).toBe(
      "denied client 203.0.113.7 until removed on route default, and on routes api, web only for its requests without their key (unlimited routes still forward it)",
    );
    expect(formatList({ client: "203.0.113.7", list: "allow", ttlSeconds: null, routes: [], fallbackRoutes: ["api"] })).toBe(
      "allowed (uncounted) client 203.0.113.7 until removed on route api only for its requests without their key",
    );
    expect(formatList({ client: "key:5d1c", list: "deny", ttlSeconds: 600, routes: ["api"] })).toBe(
      "denied client key:5d1c for 10m on route api (unlimited routes still forward it)",
    );
    expect(formatList({ client: "203.0.113.7", list: "deny", deleted: true })).toBe("removed client 203.0.113.7 from the deny list");
    expect(formatList({ client: "203.0.113.7", list: "allow", deleted: false })).toBe("client 203.0.113.7 was not on the allow list");
    expect(formatTier({ client: "203.0.113.7", tier: "pro" })).toBe("client 203.0.113.7 is on tier pro (on every route with tiers)");
    expect(formatTier({ client: "203.0.113.7", tier: "pro", was: "free" })).toBe("client 203.0.113.7 is on tier pro (on every route with tiers, was free)");
    expect(formatTier({ client: "country:T1", tier: "pro", was: "free", routes: [] })).toBe(
      "stored tier pro for client country:T1, but no route with tiers counts this kind of client: it changes nothing until one does (see `config`; was free)",
    );
    expect(formatTier({ client: "203.0.113.7", tier: "pro", routes: [], fallbackRoutes: ["api"] })).toBe(
      "client 203.0.113.7 is on tier pro (on route api only for its requests without their key)",
    );
    expect(formatTier({ client: "203.0.113.7", tier: "pro", routes: ["api", "web"] })).toBe("client 203.0.113.7 is on tier pro (on routes api, web)");
    expect(formatTier({ client: "203.0.113.7", deleted: true })).toBe("removed client 203.0.113.7's tier: each route's default tier applies");
    expect(formatTier({ client: "203.0.113.7", deleted: false })).toBe("client 203.0.113.7 had no tier");
  });

  it("Should list the entries as a table with when each expires, and say so when there are none", () => {
    expect(formatLists([]).split("\n")).toEqual(["no client is on the deny or allow list"]);
    expect(
      formatLists([
        { client: "203.0.113.7", list: "deny", ttlSeconds: 600 },
        { client: "key:5d1c", list: "allow", ttlSeconds: null },
      ]).split("\n"),
    ).toEqual(["client       list   expires in", "203.0.113.7  deny   10 min", "key:5d1c     allow  never"]);
  });

  it("Should say how many copies were written, that none are needed without a multi-key route, and that there was nothing to copy", () => {
    expect(formatCopy({ routes: [], entries: 0, copied: 0, next: null })).toBe("no route counts several keys: entries need no copies");
    expect(formatCopy({ routes: ["api", "v2"], entries: 1, copied: 0, next: null })).toBe(
      "wrote 0 copies of 1 entry to routes api, v2 (every copy was there already)",
    );
    expect(formatCopy({ routes: ["api"], entries: 0, copied: 0, next: null })).toBe("no client is on the deny or allow list: nothing to copy");
  });
});
