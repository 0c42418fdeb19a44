import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/app.ts";
import { ConfigError } from "../../../src/errors.ts";
import { createMemoryLimiter } from "../../../src/limiter/memory/memory-limiter.ts";
import type { LogEntry } from "../../../src/middleware/rate-limit/log.ts";
import { VARIABLES, type Vars } from "../../../src/settings.ts";

// Any mix of valid, nearly valid and junk settings: either createApp throws a ConfigError that
// names the variable, or the app answers every request without an exception. Limiters run in
// memory and the origin is a stub, so thousands of configurations take seconds.
const TOKEN = "tok-3b1f9c2e8d7a6b5c4d3e2f1a0b9c8d7e";

const junk = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 2 }));
/** Mostly `valid`, sometimes nearly valid, rarely junk: most configurations pass, every field gets hit. */
const mostly = <T>(valid: fc.Arbitrary<T>, near: fc.Arbitrary<unknown> = junk) =>
  fc.oneof({ weight: 12, arbitrary: valid as fc.Arbitrary<unknown> }, { weight: 2, arbitrary: near }, { weight: 1, arbitrary: junk });
const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined, freq: 2 });

const keyPart = fc.constantFrom("ip", "header:x-api-key", "header:authorization", "cookie:sid", "query:api_key", "cf:asn", "cf:country");
const keySource = fc.oneof({ weight: 3, arbitrary: keyPart }, { weight: 1, arbitrary: fc.uniqueArray(keyPart, { minLength: 2, maxLength: 4 }) });
/** A key source nearly right: a bad name, an unknown kind, a list with junk in it. */
const nearKey = fc.oneof(fc.constantFrom("header:", "header:bad name", "query:a&b", "cookie", "cf:city"), fc.array(fc.oneof(keyPart, junk), { maxLength: 5 }));
const validRule = fc
  .tuple(fc.integer({ min: 1, max: 1_000_000_000 }), fc.integer({ min: 1, max: 99_999 }), fc.constantFrom("ms", "s", "m", "h", "d"))
  .map(([n, w, u]) => `${n}/${w}${u}`);
const nearRule = fc.oneof(
  fc.constantFrom("1000000000/1000000000d", "0/1s", "10/0s", "10 / 1s", "ten/1s", "10/1.5s", "unlimited", "10/1S", "-1/1s", "10/", "/1s", "10/1s/2"),
  fc.record(
    {
      limit: fc.oneof(fc.integer({ min: 0, max: 2e9 }), junk),
      window: fc.oneof(fc.constantFrom("1s", "1m", "10d", "0s"), junk),
      algorithm: mostly(fc.constantFrom("fixed-window", "sliding-log", "sliding-window", "sliding-window-approx", "token-bucket")),
      burst: mostly(fc.integer({ min: 1, max: 2e9 })),
      buckets: mostly(fc.integer({ min: 2, max: 100 }), fc.integer({ min: -1, max: 200 })),
      name: mostly(fc.constantFrom("a", "burst", "hourly"), fc.constantFrom("Hourly", "", "a b")),
      key: mostly(keySource, nearKey),
    },
    { requiredKeys: ["limit", "window"] },
  ),
);
/** A valid rule that counts its own key: routes whose rules count different clients. */
const keyedRule = fc.record({ limit: fc.integer({ min: 1, max: 1_000 }), window: fc.constantFrom("1s", "1m", "1d"), key: keySource });
const rule = mostly(fc.oneof({ weight: 3, arbitrary: validRule }, { weight: 1, arbitrary: keyedRule }), nearRule);
const pattern = mostly(
  fc.oneof(
    fc.constantFrom("*/*", "*/api/*", "example.com/login*", "*.example.com/*", "https://example.com/x", "EXAMPLE.com./*"),
    fc
      .tuple(fc.constantFrom("", "*", "*.", "https://", "http://"), fc.domain(), fc.webPath(), fc.constantFrom("", "*"))
      .map(([a, d, p, s]) => `${a}${d}${p || "/"}${s}`),
  ),
  fc.constantFrom("example.com", "/x", "*example.com/a*b", "example.com:8080/*", "exa mple.com/*", "*/a?b", "", " "),
);
const ipv4Range = fc.tuple(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 0, max: 32 })).map(([address, prefix]) => {
  const network = (address & (prefix === 0 ? 0 : 0xffffffff << (32 - prefix))) >>> 0;
  return `ip:${[network >>> 24, (network >>> 16) & 255, (network >>> 8) & 255, network & 255].join(".")}/${prefix}`;
});
const validEntry = fc.oneof(
  ipv4Range,
  fc.ipV4().map((ip) => `ip:${ip}`),
  fc.ipV6().map((ip) => `ip:${ip}`),
  fc.constantFrom(
    "ip:10.0.0.0/8",
    "ip:2001:db8::/32",
    "ip:::ffff:192.0.2.0/120",
    "ip:203.0.113.0/24",
    "country:de",
    "country:T1",
    "country:XX",
    "asn:13335",
    "asn:4294967295",
  ),
);
const nearEntry = fc.constantFrom("ip:10.0.0.0/33", "ip:10.0.0.1/8", "ip:2001:db8::/129", "country:UK", "asn:0", "asn:AS1", "10.0.0.1", "ip:");
/** Allow/deny lists: mostly all valid, sometimes with a nearly valid entry among valid ones. */
const list = mostly(fc.array(validEntry, { maxLength: 6 }), fc.array(fc.oneof(validEntry, nearEntry), { minLength: 1, maxLength: 6 }));
/** ALLOW and DENY: a structured array or JSON text (the form a secret or `--var` takes). */
const listVariable = optional(
  mostly(
    fc.oneof(
      list,
      list.map((entries) => JSON.stringify(entries)),
    ),
    fc.constantFrom("ip:10.0.0.1", "[", "{}"),
  ),
);
const route = fc
  .record(
    {
      pattern,
      name: mostly(fc.constantFrom("login", "api", "v1")),
      origin: mostly(fc.constantFrom("https://origin.example", "http://127.0.0.1:1"), fc.constantFrom("ftp://x", "not a url", "")),
      rules: fc.oneof(rule, fc.array(rule, { maxLength: 4 })),
      tiers: mostly(fc.constantFrom("free", "pro"), fc.constantFrom("gold", "", 1)),
      algorithm: mostly(fc.constantFrom("fixed-window", "sliding-log", "sliding-window", "sliding-window-approx", "token-bucket"), fc.constant("leaky")),
      key: mostly(keySource, nearKey),
      methods: mostly(
        fc.uniqueArray(fc.constantFrom("GET", "post", "Put", "DELETE", "patch"), { minLength: 1, maxLength: 3 }),
        fc.constantFrom([], ["FETCH"], ["GET", "get"], "GET"),
      ),
      count: mostly(
        fc.oneof(fc.constant("all"), fc.uniqueArray(fc.integer({ min: 100, max: 599 }), { minLength: 1, maxLength: 3 })),
        fc.constantFrom([], [600], [401, 401], "401", [99]),
      ),
      allow: list,
      deny: list,
      cost: mostly(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: -1, max: 2000 })),
      mode: mostly(fc.constantFrom("enforce", "shadow"), fc.constant("dry-run")),
      unlimited: mostly(fc.boolean()),
      typo: junk,
    },
    { requiredKeys: ["pattern"], noNullPrototype: true },
  )
  .map((r) => (Math.abs(JSON.stringify(r).length % 9) === 0 ? r : (({ typo: _, ...rest }) => rest)(r)));
const routes = mostly(
  fc.oneof(
    fc.array(route, { maxLength: 5 }).map((list) => JSON.stringify(list)),
    fc.array(route, { maxLength: 5 }),
  ),
  fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom("[", "{}", "[null]", "[[]]")),
);
const choice = (valid: string[], near: string[] = []) => optional(mostly(fc.constantFrom(...valid), near.length ? fc.constantFrom(...near) : junk));
const number = (min: number, max: number) =>
  optional(
    mostly(fc.integer({ min, max }).map(String), fc.oneof(fc.integer({ min: -5, max: 400_000 }).map(String), fc.constantFrom("1.5", " 10", "1e3", "0x10"))),
  );
const vars: fc.Arbitrary<Vars> = fc.record({
  UPSTASH_REDIS_REST_URL: mostly(fc.constantFrom("https://redis.example", "http://127.0.0.1:8079"), fc.constantFrom("redis://x", "", "nope")),
  UPSTASH_REDIS_REST_TOKEN: mostly(fc.constant(TOKEN), fc.constantFrom("", " ")),
  RATE_LIMIT: optional(rule),
  RATE_LIMIT_ALGORITHM: choice(["fixed-window", "sliding-log", "sliding-window", "sliding-window-approx", "token-bucket"], ["Fixed-Window", "gcra"]),
  ORIGIN_URL: choice(["https://origin.example", "http://127.0.0.1:1/base/"], ["origin.example", "ws://x"]),
  ROUTES: optional(routes),
  FAILURE_MODE: choice(["open", "closed"], ["OPEN", "fail-open"]),
  REDIS_TIMEOUT_MS: number(1, 60_000),
  KEY_PREFIX: choice(["rate", "rl:v2", "a.b-c_d"], ["a{b}", "", "x".repeat(65), "a b"]),
  MODE: choice(["enforce", "shadow"], ["dry-run"]),
  RATE_LIMIT_HEADERS: choice(["draft", "legacy", "both", "none"], ["ietf"]),
  IPV6_SUBNET: number(1, 128),
  TRUSTED_PROXIES: number(0, 10),
  ORIGIN_TIMEOUT_MS: number(1, 300_000),
  ADMIN_TOKEN: optional(mostly(fc.constant("admin-token-for-the-fuzz-0123456789"), fc.constantFrom("short", " ", "x".repeat(31)))),
  ANALYTICS_CLIENT: choice(["hashed", "plain", "none"], ["sha256", "HASHED"]),
  TIERS: optional(
    mostly(
      fc.constant({ free: "100/1h", pro: ["5000/1h", "100/1s"] }),
      fc.oneof(fc.constantFrom("{}", "[]", '{"Free": "1/1s"}', '{"free": "1/1 s"}', '{"free": [{"limit": 1, "window": "1s", "key": "ip"}]}'), junk),
    ),
  ),
  ALLOW: listVariable,
  DENY: listVariable,
});
const request = fc.record({
  url: fc
    .tuple(
      fc.constantFrom("https://", "http://"),
      fc.oneof(fc.domain(), fc.constantFrom("example.com", "api.example.com", "EXAMPLE.com.")),
      fc.webPath(),
      fc.webQueryParameters(),
    )
    .map(([s, h, p, q]) => `${s}${h}${p || "/"}${q ? `?${q}` : ""}`),
  ip: fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom("", "garbage")),
  forwardedFor: fc.oneof(
    fc.constant(""),
    fc.array(fc.ipV4(), { maxLength: 4 }).map((hops) => hops.join(", ")),
  ),
  apiKey: fc.oneof(
    fc.constant(""),
    fc.string({ maxLength: 300 }).filter((s) => /^[\x21-\x7e]*$/.test(s)),
  ),
  method: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"),
  cookie: fc.oneof(
    fc.constant(""),
    fc.constantFrom("sid=abc", "a=1; sid=x%20y", "sid=", "sid", ";;=;"),
    fc.string({ maxLength: 40 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
  ),
});

const SOURCE = new RegExp(`^(${VARIABLES.join("|")})(\\[\\d+\\]|\\.[A-Za-z0-9_.-]+|\\["(?:[^"\\\\]|\\\\.)*"\\])*: \\S`);

describe("a fuzz of ROUTES and the other variables", () => {
  it("Should either refuse the configuration with a ConfigError that names the variable, or answer every request without an exception", async () => {
    let accepted = 0;
    const refusedBy = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(vars, fc.array(request, { minLength: 1, maxLength: 4 }), async (settings, requests) => {
        const logs: LogEntry[] = [];
        let app: ReturnType<typeof createApp>;
        try {
          app = createApp({
            vars: settings,
            log: (entry) => logs.push(entry),
            createLimiter: (rules, { prefix }) => createMemoryLimiter(rules, { prefix }),
            originFetch: async () => new Response("origin"),
            clock: () => 1_700_000_000_000,
          });
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          expect((error as Error).message).toMatch(SOURCE);
          expect((error as Error).message).not.toContain(TOKEN);
          const source = (error as ConfigError).source;
          refusedBy.set(source, (refusedBy.get(source) ?? 0) + 1);
          return;
        }
        accepted++;
        for (const { url, ip, forwardedFor, apiKey, method, cookie } of requests) {
          const headers: Record<string, string> = { "cf-connecting-ip": ip };
          if (forwardedFor) headers["x-forwarded-for"] = forwardedFor;
          if (apiKey) headers["x-api-key"] = apiKey;
          if (cookie) headers.cookie = cookie;
          const res = await app.request(url, { method, headers });
          // 403: a client on a DENY list (once the middleware enforces the lists).
          expect([200, 403, 429]).toContain(res.status);
        }
        expect(logs.filter((entry) => entry.level === "error")).toEqual([]);
      }),
      { numRuns: 5000, seed: 4242 },
    );
    console.log(`accepted ${accepted} configurations; refused: ${JSON.stringify(Object.fromEntries(refusedBy))}`);
    // Some configurations must get through, or the requests were never tried.
    expect(accepted).toBeGreaterThan(100);
  }, 120_000);
});
