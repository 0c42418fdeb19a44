import { describe, expect, it } from "vitest";
import { readSettings, settingsFor, type Vars } from "./settings.ts";

const base = { UPSTASH_REDIS_REST_URL: "https://eu1-x.upstash.io", UPSTASH_REDIS_REST_TOKEN: "secret-token" };

describe("readSettings", () => {
  it("Should apply README.md's defaults when only the Redis endpoint is set", () => {
    const settings = readSettings(base);
    expect(settings.defaultRoute.rules).toEqual([{ name: "default", algorithm: "fixed-window", limit: 100, windowMs: 60_000 }]);
    expect(settings).toMatchObject({ failureMode: "open", keyPrefix: "rate", headers: "draft", ipv6Subnet: 64, trustedProxies: 0, routes: [] });
    expect(settings.redis).toEqual({ url: base.UPSTASH_REDIS_REST_URL, token: "secret-token", timeoutMs: 500 });
    expect(settings.defaultRoute).toMatchObject({ mode: "enforce", unlimited: false, cost: 1, key: { kind: "ip" } });
  });

  it("Should read ROUTES given as JSON text or as a structured value, inheriting algorithm, mode and origin", () => {
    const routes = [{ pattern: "api.example.com/login*", rules: ["5/1m", { limit: 50, window: "1h", name: "hourly" }], key: "header:X-Api-Key", cost: 2 }];
    const vars = { ...base, RATE_LIMIT_ALGORITHM: "sliding-log", MODE: "shadow", ORIGIN_URL: "https://origin.example.com" };
    for (const value of [JSON.stringify(routes), routes]) {
      const [route] = readSettings({ ...vars, ROUTES: value }).routes;
      expect(route).toEqual({
        pattern: "api.example.com/login*",
        scope: "api.example.com/login*",
        origin: "https://origin.example.com",
        rules: [
          { name: "5-per-1m", algorithm: "sliding-log", limit: 5, windowMs: 60_000 },
          { name: "hourly", algorithm: "sliding-log", limit: 50, windowMs: 3_600_000 },
        ],
        unlimited: false,
        key: { kind: "header", name: "x-api-key" },
        cost: 2,
        mode: "shadow",
        count: "all",
        allow: [],
        deny: [],
      });
    }
  });

  it("Should read ALLOW, DENY and a route's own lists, naming the entry of a bad one", () => {
    const settings = readSettings({
      ...base,
      ALLOW: '["ip:198.51.100.0/24"]',
      DENY: ["country:t1", "asn:64496"],
      ROUTES: [{ pattern: "*/admin*", rules: "5/1m", allow: ["ip:2001:db8::/32"] }],
    });
    expect(settings.allow).toEqual([{ kind: "ipv4", network: 0xc6336400, prefix: 24 }]);
    expect(settings.deny).toEqual([
      { kind: "country", code: "T1" },
      { kind: "asn", asn: 64496 },
    ]);
    expect(settings.routes[0]).toMatchObject({ allow: [{ kind: "ipv6", prefix: 32 }], deny: [] });
    expect(() => readSettings({ ...base, ROUTES: [{ pattern: "*/admin*", rules: "5/1m", deny: ["ip:10.0.0.0/8", "ip:10.0.0.0/33"] }] })).toThrow(
      'ROUTES[0].deny[1]: invalid entry "ip:10.0.0.0/33" (prefix length must be 0 to 32 for IPv4)',
    );
  });

  it("Should read a route's methods and the statuses it counts", () => {
    const [route] = readSettings({ ...base, ROUTES: [{ pattern: "api.example.com/login", rules: ["5/15m"], methods: ["post"], count: [401] }] }).routes;
    expect(route).toMatchObject({ methods: ["POST"], count: [401] });
    expect(readSettings(base).defaultRoute).toMatchObject({ count: "all" });
    expect(readSettings(base).defaultRoute.methods).toBeUndefined();
  });

  it("Should accept a token-bucket burst and RATE_LIMIT=unlimited", () => {
    const settings = readSettings({
      ...base,
      RATE_LIMIT: "unlimited",
      ROUTES: [{ pattern: "*/api/*", rules: [{ limit: 10, window: "1s", algorithm: "token-bucket", burst: 30 }] }],
    });
    expect(settings.defaultRoute).toMatchObject({ unlimited: true, rules: [] });
    expect(settings.routes[0]!.rules).toEqual([{ name: "default", algorithm: "token-bucket", limit: 10, windowMs: 1000, burst: 30 }]);
  });

  it("Should read RATE_LIMIT written out as JSON text, as npm start's environment, --var and secrets give it, and name bad JSON", () => {
    const rule = '{ "limit": 20, "window": "1s", "algorithm": "token-bucket", "burst": 40 }';
    expect(readSettings({ ...base, RATE_LIMIT: rule }).defaultRoute.rules).toEqual([
      { name: "default", algorithm: "token-bucket", limit: 20, windowMs: 1000, burst: 40 },
    ]);
    expect(() => readSettings({ ...base, RATE_LIMIT: '{ limit: 20, window: "1s" }' })).toThrow(
      'RATE_LIMIT: invalid JSON "{ limit: 20, window: \\"1s\\" }" (expected a rule such as {"limit": 20, "window": "1s"})',
    );
    expect(() => readSettings({ ...base, RATE_LIMIT: '{ "limit": 20 }' })).toThrow('RATE_LIMIT: missing key "window"');
  });

  it("Should accept sliding-window buckets, and name the path and value of a bad one", () => {
    const routes = (buckets: unknown) => [{ pattern: "*/api/*", rules: [{ limit: 50, window: "1m", algorithm: "sliding-window", buckets }] }];
    expect(readSettings({ ...base, ROUTES: routes(60) }).routes[0]!.rules).toEqual([
      { name: "default", algorithm: "sliding-window", limit: 50, windowMs: 60_000, buckets: 60 },
    ]);
    expect(() => readSettings({ ...base, ROUTES: routes(1) })).toThrow("ROUTES[0].rules[0].buckets: invalid value 1 (expected an integer from 2 to 100)");
  });

  it("Should take a count in a rule's text from 1 to 1,000,000,000, as in its object form", () => {
    expect(readSettings({ ...base, RATE_LIMIT: "1000000000/1s" }).defaultRoute.rules[0]).toMatchObject({ limit: 1_000_000_000 });
    expect(() => readSettings({ ...base, RATE_LIMIT: "1000000001/1s" })).toThrow(
      'RATE_LIMIT: invalid count "1000000001" (expected an integer from 1 to 1000000000)',
    );
  });

  it("Should refuse a rule whose limit × window the scripts cannot count exactly, naming the path, the value and the most it allows", () => {
    expect(readSettings({ ...base, RATE_LIMIT: "434374/30d" }).defaultRoute.rules[0]).toMatchObject({ limit: 434_374 });
    // Exactly 2^50 is still exact.
    expect(readSettings({ ...base, RATE_LIMIT: "536870912/2097152ms" }).defaultRoute.rules[0]).toMatchObject({ limit: 2 ** 29, windowMs: 2 ** 21 });
    expect(() => readSettings({ ...base, RATE_LIMIT: "434375/30d" })).toThrow("at most 434374 per 30d");
    expect(() => readSettings({ ...base, RATE_LIMIT: "1000000/30d" })).toThrow(
      'RATE_LIMIT: invalid rule "1000000/30d" (limit × window must stay within 2^50 ms: at most 434374 per 30d)',
    );
    expect(() => readSettings({ ...base, ROUTES: [{ pattern: "*/api/*", rules: ["5/1s", { limit: 2_000_000, window: "30d" }] }] })).toThrow(
      "ROUTES[0].rules[1].limit: invalid value 2000000 (limit × window must stay within 2^50 ms: at most 434374 per 30d)",
    );
    const burst = { limit: 10, window: "30d", algorithm: "token-bucket", burst: 1_000_000 };
    expect(() => readSettings({ ...base, TIERS: { pro: [burst] } })).toThrow(
      "TIERS.pro[0].burst: invalid value 1000000 (burst × window must stay within 2^50 ms: at most 434374 per 30d)",
    );
  });

  it("Should refuse a route that an earlier one shadows for every method it has, and accept one that narrows or widens the methods", () => {
    const route = (pattern: string, name: string, methods?: string[]) => ({ pattern, name, rules: "5/1m", ...(methods ? { methods } : {}) });
    expect(() => readSettings({ ...base, ROUTES: [route("*/Login", "a"), route("*/login", "b")] })).toThrow(
      'ROUTES[1].pattern: "*/login" matches the requests ROUTES[0] ("*/Login") matches, for every method it has, so it would never apply (patterns ignore case and percent-encoding, read a host in its ASCII form, and match an exact path with or without its trailing slash)',
    );
    expect(() => readSettings({ ...base, ROUTES: [route("*/login", "a"), route("*/login/", "b")] })).toThrow(
      'ROUTES[1].pattern: "*/login/" matches the requests ROUTES[0] ("*/login") matches, for every method it has, so it would never apply (patterns ignore case and percent-encoding, read a host in its ASCII form, and match an exact path with or without its trailing slash)',
    );
    expect(() => readSettings({ ...base, ROUTES: [route("*/my file", "a"), route("*/My%20File", "b")] })).toThrow(
      'ROUTES[1].pattern: "*/My%20File" matches the requests ROUTES[0] ("*/my file") matches, for every method it has, so it would never apply (patterns ignore case and percent-encoding, read a host in its ASCII form, and match an exact path with or without its trailing slash)',
    );
    expect(() => readSettings({ ...base, ROUTES: [route("*.bücher.example/*", "a"), route("*.xn--bcher-kva.example/*", "b")] })).toThrow(
      'ROUTES[1].pattern: "*.xn--bcher-kva.example/*" matches the requests ROUTES[0] ("*.bücher.example/*") matches, for every method it has, so it would never apply (patterns ignore case and percent-encoding, read a host in its ASCII form, and match an exact path with or without its trailing slash)',
    );
    expect(() => readSettings({ ...base, ROUTES: [route("*/export", "a", ["GET"]), route("*/export", "b", ["HEAD"])] })).toThrow(
      'ROUTES[1].pattern: "*/export" matches the requests ROUTES[0] ("*/export") matches, for every method it has, so it would never apply',
    );
    expect(() => readSettings({ ...base, ROUTES: [route("*/login", "a", ["GET", "POST"]), route("*/login", "b", ["POST"])] })).toThrow(
      'ROUTES[1].pattern: "*/login" matches the requests ROUTES[0] ("*/login") matches, for every method it has, so it would never apply',
    );
    const narrower = readSettings({
      ...base,
      ROUTES: [route("*/login", "all"), route("*/login", "posts", ["POST"]), route("*/login", "rest", ["GET", "PUT"])],
    });
    expect(narrower.routes.map((r) => r.scope)).toEqual(["all", "posts", "rest"]);
    expect(readSettings({ ...base, ROUTES: [route("*/login", "posts", ["POST"]), route("*/login", "others")] }).routes).toHaveLength(2);
    // The second still takes the POSTs the first leaves it.
    expect(readSettings({ ...base, ROUTES: [route("*/login", "reads", ["GET"]), route("*/login", "writes", ["GET", "POST"])] }).routes).toHaveLength(2);
  });

  it("Should refuse a route name outside the rule names' alphabet, since names end up in Redis keys", () => {
    // Both routes' keys would be `rate:fixed:{ip}:login:5-per-1m:<window>`: five searches would spend the login's budget.
    const routes = [
      { pattern: "*/login*", name: "login", rules: ["5/1m", "50/1h"] },
      { pattern: "*/search*", name: "login:5-per-1m", rules: "5/1m" },
    ];
    expect(() => readSettings({ ...base, ROUTES: routes })).toThrow(
      'ROUTES[1].name: invalid name "login:5-per-1m" (expected lowercase letters, digits, "_", "." or "-")',
    );
    for (const name of ["a{b}", "a b\nc", "Login", ""]) {
      expect(() => readSettings({ ...base, ROUTES: [{ pattern: "*/a", name, rules: "5/1m" }] })).toThrow(
        `ROUTES[0].name: invalid name ${JSON.stringify(name)}`,
      );
    }
    expect(readSettings({ ...base, ROUTES: [{ pattern: "*/a", name: "login_v2.post-1", rules: "5/1m" }] }).routes[0]!.scope).toBe("login_v2.post-1");
  });

  it("Should refuse an unnamed route whose pattern is another route's followed by a colon, as their Redis keys could meet", () => {
    const login = { pattern: "*/login", rules: ["5/1m", "50/1h"] };
    const colon = { pattern: "*/login:5-per-1m", rules: "5/1m" };
    const message =
      'ROUTES[1].pattern: "*/login:5-per-1m" would share Redis keys with ROUTES[0] ("*/login"), as keys join a route\'s name, else its pattern, to a rule\'s with ":" (give one a "name")';
    expect(() => readSettings({ ...base, ROUTES: [login, colon] })).toThrow(message);
    expect(() => readSettings({ ...base, ROUTES: [colon, login] })).toThrow(
      'ROUTES[0].pattern: "*/login:5-per-1m" would share Redis keys with ROUTES[1] ("*/login")',
    );
    expect(readSettings({ ...base, ROUTES: [login, { ...colon, name: "login-colon" }] }).routes).toHaveLength(2);
    expect(readSettings({ ...base, ROUTES: [login, { ...colon, pattern: "*/v1/jobs:cancel" }] }).routes).toHaveLength(2);
  });

  it("Should accept a route named like a scheme beside a pattern with that scheme, since no key part after a colon starts with a slash", () => {
    const routes = [
      { pattern: "a.example/x", name: "https", rules: ["1/1s", "10/1m"] },
      { pattern: "https://a.example/y", rules: "1/1s" },
      { pattern: "*/login", rules: "1/1s" },
      { pattern: "*/login:", rules: "1/1s" },
      { pattern: "*/login:X", rules: "1/1s" },
    ];
    expect(readSettings({ ...base, ROUTES: routes }).routes).toHaveLength(5);
  });

  it("Should refuse a route whose cost is more than one of its rules ever allows, since it would refuse every request", () => {
    const route = { pattern: "*/export*", rules: ["5/1m", "100/1h"], cost: 10 };
    expect(() => readSettings({ ...base, ROUTES: [route] })).toThrow(
      'ROUTES[0].cost: invalid value 10 (more than rule "5-per-1m" allows in a window, 5: every request would be refused)',
    );
    const bucket = { limit: 5, window: "1m", algorithm: "token-bucket", burst: 20 };
    expect(readSettings({ ...base, ROUTES: [{ ...route, rules: bucket }] }).routes[0]!.cost).toBe(10);
    expect(() => readSettings({ ...base, TIERS: { free: "5/1m", pro: "500/1m" }, ROUTES: [{ pattern: "*/export*", tiers: "pro", cost: 10 }] })).toThrow(
      'ROUTES[0].cost: invalid value 10 (more than tier "free"\'s rule "default" allows in a window, 5: every request would be refused)',
    );
  });

  it("Should read a rule's own key, and refuse one on a tier's rule, naming the path and the value", () => {
    const routes = [
      {
        pattern: "*/v1/*",
        rules: [
          { limit: 100, window: "1m" },
          { limit: 10_000, window: "1d", key: "header:X-Api-Key" },
        ],
      },
    ];
    expect(readSettings({ ...base, ROUTES: routes }).routes[0]!.rules).toEqual([
      { name: "rule-0", algorithm: "fixed-window", limit: 100, windowMs: 60_000 },
      { name: "rule-1", algorithm: "fixed-window", limit: 10_000, windowMs: 86_400_000, key: { kind: "header", name: "x-api-key" } },
    ]);
    expect(() => readSettings({ ...base, TIERS: { pro: ["100/1s", { limit: 5, window: "1s", key: "ip" }] } })).toThrow(
      'TIERS.pro[1].key: a rule\'s own key "ip" is not allowed here (a tier belongs to one client, so its rules count the route\'s "key")',
    );
  });

  it("Should refuse an origin with a query, a fragment or a user name, which forwarding would drop, naming where", () => {
    expect(() => readSettings({ ...base, ORIGIN_URL: "http://origin.example/api?token=abc" })).toThrow(
      'ORIGIN_URL: invalid origin "http://origin.example/api?token=abc" (an origin is a scheme, a host, a port and a path prefix; its query would be dropped)',
    );
    expect(() => readSettings({ ...base, ROUTES: [{ pattern: "*/a/*", rules: "1/1s", origin: "https://user:pw@origin.example/" }] })).toThrow(
      'ROUTES[0].origin: invalid origin "https://origin.example/" (an origin is a scheme, a host, a port and a path prefix; its user name and password would be dropped)',
    );
    expect(() => readSettings({ ...base, ORIGIN_URL: "https://origin.example/#top" })).toThrow("its fragment would be dropped");
    expect(readSettings({ ...base, ORIGIN_URL: "https://origin.example:8443/v1" }).defaultRoute.origin).toBe("https://origin.example:8443/v1");
  });

  it("Should treat empty strings as unset, and numbers given as numbers as numbers", () => {
    const settings = readSettings({ ...base, ORIGIN_URL: "", REDIS_TIMEOUT_MS: 120, IPV6_SUBNET: "48" });
    expect(settings.defaultRoute.origin).toBeUndefined();
    expect(settings.redis.timeoutMs).toBe(120);
    expect(settings.ipv6Subnet).toBe(48);
  });

  it("Should never quote the token in an error", () => {
    expect(() => readSettings({ ...base, UPSTASH_REDIS_REST_TOKEN: "" })).toThrow("UPSTASH_REDIS_REST_TOKEN: is required");
    expect(() => readSettings({ ...base, UPSTASH_REDIS_REST_TOKEN: 42 as unknown as string })).toThrow(
      /^UPSTASH_REDIS_REST_TOKEN: expected a non-empty string$/,
    );
  });

  it("Should refuse at start a token that no HTTP header can carry, saying what is wrong without quoting it", () => {
    const cases: Array<[string, RegExp]> = [
      ["AYNgASQg\nODk0secret", /^UPSTASH_REDIS_REST_TOKEN: contains a control character \(U\+000A at character 9\)/],
      ["AYNgASQg\u0000ODk0secret", /^UPSTASH_REDIS_REST_TOKEN: contains a control character \(U\+0000 at character 9\)/],
      ["AYNgASQg\u2019ODk0secret", /^UPSTASH_REDIS_REST_TOKEN: contains a character outside Latin-1 \(U\+2019 at character 9\)/],
    ];
    for (const [token, message] of cases) {
      const read = () => readSettings({ ...base, UPSTASH_REDIS_REST_TOKEN: token });
      expect(read).toThrow(message);
      expect(read).not.toThrow(/ASQg/);
    }
  });

  it("Should take a token pasted with a line break or spaces at its ends as the token without them, as fetch sends it", () => {
    for (const token of ["AYNgASQgODk0secret\r\n", " AYNgASQgODk0secret\n", "AYNgASQgODk0secret"]) {
      expect(readSettings({ ...base, UPSTASH_REDIS_REST_TOKEN: token }).redis.token).toBe("AYNgASQgODk0secret");
    }
  });

  it("Should refuse at start a Redis URL with a user name or password, naming the variable and never quoting the password", () => {
    for (const url of ["http://user:pw-AYNgASQg@127.0.0.1:8079", "https://default:pw-AYNgASQg@eu1-x.upstash.io/", "https://pw-AYNgASQg@eu1-x.upstash.io"]) {
      const read = () => readSettings({ ...base, UPSTASH_REDIS_REST_URL: url });
      expect(read).toThrow(/^UPSTASH_REDIS_REST_URL: has a user name or password in it, which fetch refuses: put the token in UPSTASH_REDIS_REST_TOKEN/);
      expect(read).not.toThrow(/AYNgASQg/);
    }
  });

  it("Should mask any quoted piece of the token of 8 characters or more, where a parser split it or quoted its middle", () => {
    const token = "AYNgASQgODk/0MzA5NzY4LWRmZmQtNDc4Ni1iZjY2ZTc2MDQ5";
    const read = (vars: Record<string, unknown>) => () => readSettings({ ...base, UPSTASH_REDIS_REST_TOKEN: token, ...vars });
    expect(read({ RATE_LIMIT: token })).toThrow('RATE_LIMIT: invalid count "[redacted]" (expected an integer from 1 to 1000000000)');
    expect(read({ TIERS: { pro: token } })).toThrow('TIERS.pro: invalid count "[redacted]"');
    expect(read({ ROUTES: [{ pattern: "*/x", rules: token.slice(12, 40) }] })).toThrow('ROUTES[0].rules: invalid rule "[redacted]"');
    expect(read({ KEY_PREFIX: `rate:${token.slice(20, 30)}{` })).toThrow('KEY_PREFIX: invalid key prefix "rate:[redacted]{"');
    // A tier's name is in the message's path, not quoted: a token there is masked all the same.
    expect(read({ TIERS: { [token]: "1/1m" } })).not.toThrow(token.slice(0, 8));
    const hex = "0f3c9a7b5d2e4f6a8b1c3d5e7f9a0b2c";
    expect(() => readSettings({ ...base, UPSTASH_REDIS_REST_TOKEN: hex, TIERS: { [hex]: "5 per minute" } })).toThrow(
      /^TIERS\.\[redacted\]: invalid rule "5 per minute"/,
    );
    // Shorter runs are chance as often as not, and the words of the message itself are never masked.
    expect(read({ RATE_LIMIT: "AYNg/1s" })).toThrow('RATE_LIMIT: invalid count "AYNg"');
  });

  it("Should turn the admin API on only with an ADMIN_TOKEN of at least 32 characters, never quoting it", () => {
    expect(readSettings(base).adminToken).toBeUndefined();
    expect(readSettings({ ...base, ADMIN_TOKEN: "a".repeat(32) }).adminToken).toBe("a".repeat(32));
    expect(() => readSettings({ ...base, ADMIN_TOKEN: "hunter2-is-short" })).toThrow(/^ADMIN_TOKEN: must be at least 32 characters \(got 16\)$/);
    expect(() => readSettings({ ...base, ADMIN_TOKEN: 42 })).toThrow("ADMIN_TOKEN: expected a string (set it with `wrangler secret put ADMIN_TOKEN`)");
    // A pasted line break is dropped, as for the Upstash token; a space inside could never be sent as a Bearer token.
    expect(readSettings({ ...base, ADMIN_TOKEN: `${"a".repeat(32)}\n` }).adminToken).toBe("a".repeat(32));
    expect(() => readSettings({ ...base, ADMIN_TOKEN: `correct horse battery staple ${"0".repeat(10)}` })).toThrow(
      /^ADMIN_TOKEN: contains U\+0020 at character 8, which a Bearer token cannot carry \(use visible ASCII only, e\.g\. `openssl rand -hex 32`\)$/,
    );
  });

  it("Should mask the admin token when it was pasted into another variable", () => {
    const token = "adm1n-0123456789-abcdefghijklmnopq";
    expect(() => readSettings({ ...base, ADMIN_TOKEN: token, KEY_PREFIX: `${token}{` })).toThrow('KEY_PREFIX: invalid key prefix "[redacted]{"');
  });

  it("Should hash clients in events by default, and accept plain or none", () => {
    expect(readSettings(base).analytics).toEqual({ client: "hashed" });
    expect(readSettings({ ...base, ANALYTICS_CLIENT: "none" }).analytics).toEqual({ client: "none" });
    expect(() => readSettings({ ...base, ANALYTICS_CLIENT: "sha256" })).toThrow(
      'ANALYTICS_CLIENT: unknown analytics client "sha256" (expected one of hashed, plain, none)',
    );
  });

  it("Should name the variable, the path and the value of a nested mistake", () => {
    const routes = [
      { pattern: "a.com/*", rules: "1/1s" },
      { pattern: "b.com/*", rules: [{ limit: 5, window: "1s", algorithm: "leaky" }] },
    ];
    expect(() => readSettings({ ...base, ROUTES: routes })).toThrow(
      'ROUTES[1].rules[0].algorithm: unknown algorithm "leaky" (expected one of fixed-window, sliding-log, sliding-window, sliding-window-approx, token-bucket)',
    );
    expect(() => readSettings({ ...base, ROUTES: [{ pattern: "a.com/*", rules: "1/1s", cost: 0 }] })).toThrow(
      "ROUTES[0].cost: invalid value 0 (expected an integer from 1 to 1000)",
    );
    expect(() => readSettings({ ...base, KEY_PREFIX: "rate{x}" })).toThrow('KEY_PREFIX: invalid key prefix "rate{x}"');
  });

  it("Should accept each number from its least to its most, and refuse one beyond or not in decimal digits, naming the variable and the value", () => {
    const bounds: Array<[keyof Vars, number, number]> = [
      ["REDIS_TIMEOUT_MS", 1, 60_000],
      ["IPV6_SUBNET", 1, 128],
      ["TRUSTED_PROXIES", 0, 10],
      ["ORIGIN_TIMEOUT_MS", 1, 300_000],
    ];
    for (const [name, min, max] of bounds) {
      const expected = `(expected an integer from ${min} to ${max})`;
      for (const edge of [min, max]) expect(() => readSettings({ ...base, [name]: String(edge) }), `${name}=${edge}`).not.toThrow();
      for (const text of [String(min - 1), String(max + 1), "1e2", "0x10", "10 ", "10.0"]) {
        expect(() => readSettings({ ...base, [name]: text })).toThrow(`${name}: invalid value ${JSON.stringify(text)} ${expected}`);
      }
    }
  });

  it("Should take the words of FAILURE_MODE, MODE, RATE_LIMIT_ALGORITHM and RATE_LIMIT_HEADERS only as written, in lowercase", () => {
    const cases: Array<[keyof Vars, string, string]> = [
      ["FAILURE_MODE", "Closed", 'FAILURE_MODE: unknown failure mode "Closed" (expected one of open, closed)'],
      ["MODE", "SHADOW", 'MODE: unknown mode "SHADOW" (expected one of enforce, shadow)'],
      ["RATE_LIMIT_ALGORITHM", "Token-Bucket", 'RATE_LIMIT_ALGORITHM: unknown algorithm "Token-Bucket"'],
      ["RATE_LIMIT_HEADERS", "Legacy", 'RATE_LIMIT_HEADERS: unknown header style "Legacy" (expected one of draft, legacy, both, none)'],
    ];
    for (const [name, value, message] of cases) expect(() => readSettings({ ...base, [name]: value })).toThrow(message);
  });

  it("Should count an ADMIN_TOKEN's length without the line break pasted after it", () => {
    expect(() => readSettings({ ...base, ADMIN_TOKEN: `${"a".repeat(31)}\n` })).toThrow(/^ADMIN_TOKEN: must be at least 32 characters \(got 31\)$/);
  });

  it("Should take a KEY_PREFIX of up to 64 characters and refuse a longer one, quoting it", () => {
    expect(readSettings({ ...base, KEY_PREFIX: "p".repeat(64) }).keyPrefix).toBe("p".repeat(64));
    expect(() => readSettings({ ...base, KEY_PREFIX: "p".repeat(65) })).toThrow(
      `KEY_PREFIX: invalid key prefix "${"p".repeat(65)}" (letters, digits, "_", ".", ":", "-"; at most 64)`,
    );
  });

  it("Should read RATE_LIMIT written out as JSON text after a line break or spaces, as a multi-line value gives it", () => {
    expect(readSettings({ ...base, RATE_LIMIT: '\n  { "limit": 20, "window": "1s" }' }).defaultRoute.rules).toEqual([
      { name: "default", algorithm: "fixed-window", limit: 20, windowMs: 1000 },
    ]);
  });

  it("Should mask a token shorter than 8 characters, whole, where another variable quotes it", () => {
    const read = () => readSettings({ ...base, UPSTASH_REDIS_REST_TOKEN: "Zq7xK2", RATE_LIMIT: "Zq7xK2/1s" });
    expect(read).toThrow('RATE_LIMIT: invalid count "[redacted]"');
    expect(read).not.toThrow(/Zq7xK2/);
  });

  it("Should quote bad JSON cut at 60 characters", () => {
    const text = `[{"pattern": "example.com/${"a".repeat(60)}", rules: "5/1m"}]`;
    expect(() => readSettings({ ...base, ROUTES: text })).toThrow(
      `ROUTES: invalid JSON ${JSON.stringify(`${text.slice(0, 60)}…`)} (expected a list such as [{"pattern": "example.com/*", "rules": "10/1s"}])`,
    );
  });

  it("Should refuse an origin with a user name and no password, which forwarding would drop too", () => {
    expect(() => readSettings({ ...base, ORIGIN_URL: "https://user@origin.example/" })).toThrow(
      'ORIGIN_URL: invalid origin "https://origin.example/" (an origin is a scheme, a host, a port and a path prefix; its user name and password would be dropped)',
    );
  });

  it("Should say what a route or a rule is missing, naming where", () => {
    expect(() => readSettings({ ...base, ROUTES: [{ rules: "5/1m" }] })).toThrow('ROUTES[0]: missing key "pattern"');
    expect(() => readSettings({ ...base, ROUTES: [{ pattern: "*/a" }] })).toThrow('ROUTES[0]: missing key "rules" (or "tiers", or set "unlimited": true)');
    expect(() => readSettings({ ...base, ROUTES: [{ pattern: "*/a", rules: [] }] })).toThrow(
      'ROUTES[0].rules: expected at least one rule (or set "unlimited": true)',
    );
    expect(() => readSettings({ ...base, ROUTES: [{ pattern: "*/a", rules: { window: "1m" } }] })).toThrow('ROUTES[0].rules: missing key "limit"');
    expect(() => readSettings({ ...base, ROUTES: [{ pattern: "*/a", tiers: "free" }] })).toThrow(
      'ROUTES[0].tiers: no tiers to choose from (define them in TIERS, e.g. {"free": "100/1h", "pro": "5000/1h"})',
    );
  });

  it("Should refuse a route both unlimited and with tiers, whose tiers would never apply", () => {
    expect(() => readSettings({ ...base, TIERS: { free: "100/1h" }, ROUTES: [{ pattern: "*/a", tiers: "free", unlimited: true }] })).toThrow(
      'ROUTES[0].tiers: a route with tiers takes its rules from TIERS (remove "unlimited")',
    );
  });

  it("Should refuse beside unlimited every key that shapes what a route counts, which would silently do nothing there", () => {
    for (const [key, value] of [
      ["rules", "5/1m"],
      ["cost", 50],
      ["count", [401]],
      ["algorithm", "sliding-log"],
      ["mode", "shadow"],
    ] as const) {
      expect(() => readSettings({ ...base, ROUTES: [{ pattern: "*/health", unlimited: true, [key]: value }] }), key).toThrow(
        `ROUTES[0].${key}: an unlimited route counts nothing (remove "${key}" or "unlimited")`,
      );
    }
    // Who the route is about still means something there: the admin API reads a key= as its key source does.
    expect(readSettings({ ...base, ROUTES: [{ pattern: "*/health", unlimited: true, key: "header:x-api-key" }] }).routes[0]).toMatchObject({ unlimited: true });
  });

  it("Should take route, rule and tier names of up to 64 characters and refuse longer ones, since they end up in Redis keys", () => {
    const [long, tooLong] = ["n".repeat(64), "n".repeat(65)];
    const settings = readSettings({
      ...base,
      TIERS: { [long]: "5/1m" },
      ROUTES: [{ pattern: "*/a", name: long, rules: { limit: 5, window: "1m", name: long } }],
    });
    expect(settings.routes[0]).toMatchObject({ scope: long, rules: [{ name: long }] });
    expect(Object.keys(settings.tiers)).toEqual([long]);
    expect(() => readSettings({ ...base, ROUTES: [{ pattern: "*/a", name: tooLong, rules: "5/1m" }] })).toThrow(`ROUTES[0].name: invalid name "${tooLong}"`);
    expect(() => readSettings({ ...base, ROUTES: [{ pattern: "*/a", rules: { limit: 5, window: "1m", name: tooLong } }] })).toThrow(
      `ROUTES[0].rules.name: invalid name "${tooLong}"`,
    );
    expect(() => readSettings({ ...base, TIERS: { [tooLong]: "5/1m" } })).toThrow(`TIERS.${tooLong}: invalid tier name "${tooLong}"`);
  });

  it("Should refuse a name that starts with an underscore, a dot or a dash, as no name may", () => {
    for (const name of ["_login", ".login", "-login"]) {
      expect(() => readSettings({ ...base, ROUTES: [{ pattern: "*/a", name, rules: "5/1m" }] })).toThrow(`ROUTES[0].name: invalid name "${name}"`);
    }
  });

  it("Should refuse a rule's count with a leading zero or spaces, as its window is refused, rather than guess", () => {
    const expected = "(expected an integer from 1 to 1000000000)";
    expect(() => readSettings({ ...base, RATE_LIMIT: "010/1s" })).toThrow(`RATE_LIMIT: invalid count "010" ${expected}`);
    expect(() => readSettings({ ...base, RATE_LIMIT: "10 / 1s" })).toThrow(`RATE_LIMIT: invalid count "10 " ${expected}`);
  });

  it("Should refuse a token-bucket burst of 0 where it is written, even in RATE_LIMIT, which has no cost to check it against", () => {
    expect(() => readSettings({ ...base, RATE_LIMIT: '{"limit": 10, "window": "1s", "algorithm": "token-bucket", "burst": 0}' })).toThrow(
      "RATE_LIMIT.burst: invalid value 0 (expected an integer from 1 to 1000000000)",
    );
  });

  it("Should refuse TIERS written as a list or naming no tier, quoting the value", () => {
    expect(() => readSettings({ ...base, TIERS: '["100/1h"]' })).toThrow('TIERS: expected an object of tiers, got ["100/1h"]');
    expect(() => readSettings({ ...base, TIERS: "{}" })).toThrow("TIERS: expected at least one tier");
  });

  it("Should parse once per env object", () => {
    const env = { ...base };
    expect(settingsFor(env)).toBe(settingsFor(env));
    expect(settingsFor({ ...base })).not.toBe(settingsFor(env));
  });
});

describe("settingsFor", () => {
  it("Should remember a bad env's error instead of parsing it again", () => {
    const env = { ...base, MODE: "loud" };
    const first = (() => {
      try {
        settingsFor(env);
      } catch (error) {
        return error;
      }
    })();
    expect(first).toMatchObject({ name: "ConfigError", message: 'MODE: unknown mode "loud" (expected one of enforce, shadow)' });
    expect(() => settingsFor(env)).toThrow(first as Error);
  });
});

describe("values that JSON cannot spell, in messages", () => {
  it.each([
    [{ REDIS_TIMEOUT_MS: Number.POSITIVE_INFINITY }, "REDIS_TIMEOUT_MS: invalid value Infinity (expected an integer from 1 to 60000)"],
    [{ REDIS_TIMEOUT_MS: Number.NaN }, "REDIS_TIMEOUT_MS: invalid value NaN (expected an integer from 1 to 60000)"],
    [
      { ROUTES: [{ pattern: "*/x", rules: "5/1m", cost: Number.POSITIVE_INFINITY }] },
      "ROUTES[0].cost: invalid value Infinity (expected an integer from 1 to 1000)",
    ],
  ])("Should quote the value as written (TOML's inf and nan, JSON's 1e999), not as null: %o", (vars, message) => {
    expect(() => readSettings({ ...base, ...vars })).toThrow(message);
  });

  it("Should refuse a TOML date as a rule, quoting it, rather than read it as a rule without a limit", () => {
    expect(() => readSettings({ ...base, RATE_LIMIT: new Date("1979-05-27T07:32:00Z") as never })).toThrow(
      'RATE_LIMIT: expected a rule, "<count>/<window>" (e.g. "100/60s") or {"limit": …, "window": …}, got "1979-05-27T07:32:00.000Z"',
    );
  });

  it("Should name the tier whose name is invalid in the path, quoted when it is no name", () => {
    expect(() => readSettings({ ...base, TIERS: { free: "100/1h", Pro: "5/1s" } })).toThrow('TIERS.Pro: invalid tier name "Pro"');
    expect(() => readSettings({ ...base, TIERS: { "": "5/1s" } })).toThrow('TIERS[""]: invalid tier name ""');
  });

  it("Should refuse a TOML date where a route belongs", () => {
    expect(() => readSettings({ ...base, ROUTES: [new Date("1979-05-27T07:32:00Z")] as never })).toThrow(
      'ROUTES[0]: expected an object, got "1979-05-27T07:32:00.000Z"',
    );
  });
});
