import { describe, expect, it } from "vitest";
import type { KeySource } from "../config/types.ts";
import { identify, isIdentifier, MAX_KEY_LENGTH, sha256Hex, UNKNOWN_CLIENT } from "./identify.ts";
import { clientIp } from "./ip.ts";

const byIp = { key: { kind: "ip" as const }, ipv6Subnet: 64, trustedProxies: 0 };
const byKey = { ...byIp, key: { kind: "header" as const, name: "x-api-key" } };

describe("clientIp", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    ["2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"],
    ["2001:DB8:1:2::1", "2001:db8:1:2::/64"],
    ["2001:db8:0:0:1::1", "2001:db8::/64"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["::ffff:cb00:7107", "203.0.113.7"],
    ["fe80::1%eth0", "fe80::/64"],
    ["[2001:db8::1]", "2001:db8::/64"],
    ["::1", "::/64"],
  ])("Should read %s as %s", (text, client) => expect(clientIp(text, 64)).toBe(client));

  it("Should group IPv6 by the configured prefix length", () => {
    expect(clientIp("2001:db8:abcd:1234::1", 48)).toBe("2001:db8:abcd::/48");
    expect(clientIp("2001:db8:abcd:1234::1", 128)).toBe("2001:db8:abcd:1234::1/128");
    expect(clientIp("2001:db8:abcd:12ff::1", 56)).toBe("2001:db8:abcd:1200::/56");
  });

  it.each(["", "256.1.1.1", "1.2.3", "01.2.3.4", "0x7f.0.0.1", "2001:db8::1::2", "2001:db8:1:2:3:4:5:6:7", "gggg::1", "::ffff:1.2.3.999", "localhost"])(
    "Should refuse %j",
    (text) => expect(clientIp(text, 64)).toBeUndefined(),
  );
});

describe("identify", () => {
  it("Should count one /64 as one client", async () => {
    const a = await identify(new Headers({ "cf-connecting-ip": "2001:db8:1:2::a" }), byIp);
    const b = await identify(new Headers({ "cf-connecting-ip": "2001:db8:1:2:ffff::b" }), byIp);
    expect(a).toEqual({ client: "2001:db8:1:2::/64" });
    expect(b).toEqual(a);
  });

  it("Should ignore X-Forwarded-For unless proxies are trusted, then take the address the outermost one saw", async () => {
    const headers = new Headers({ "cf-connecting-ip": "198.51.100.1", "x-forwarded-for": "1.1.1.1, 203.0.113.9" });
    expect(await identify(headers, byIp)).toEqual({ client: "198.51.100.1" });
    expect(await identify(headers, { ...byIp, trustedProxies: 1 })).toEqual({ client: "203.0.113.9" });
    expect(await identify(headers, { ...byIp, trustedProxies: 3 })).toEqual({ client: UNKNOWN_CLIENT, warning: "missing-forwarded-for" });
  });

  it("Should not count the entry Cloudflare appends (the connecting address) as one of your proxies", async () => {
    const headers = new Headers({ "cf-connecting-ip": "198.51.100.1", "x-forwarded-for": "1.1.1.1, 203.0.113.9, 198.51.100.1" });
    expect(await identify(headers, { ...byIp, trustedProxies: 1 })).toEqual({ client: "203.0.113.9" });
  });

  it("Should read X-Forwarded-For hops written with a port, and drop Cloudflare's hop however its address is spelt", async () => {
    const proxied = { ...byIp, trustedProxies: 1 };
    const forwarded = (xff: string, cf = "192.0.2.1") => identify(new Headers({ "cf-connecting-ip": cf, "x-forwarded-for": xff }), proxied);
    // Azure Application Gateway appends `address:port` (RFC 7239 §6 node syntax: IPv6 in brackets).
    expect(await forwarded("203.0.113.9, 198.51.100.7:1234")).toEqual({ client: "198.51.100.7" });
    expect(await forwarded("203.0.113.9, [2001:db8:1:2::1]:443")).toEqual({ client: "2001:db8:1:2::/64" });
    expect(await forwarded("203.0.113.9, [2001:db8:1:2::1]")).toEqual({ client: "2001:db8:1:2::/64" });
    // Cloudflare's own hop is the connecting address, compared as an address, not as text.
    expect(await forwarded("198.51.100.7, 2001:DB8::5", "2001:db8::5")).toEqual({ client: "198.51.100.7" });
    expect(await forwarded("198.51.100.7, 2001:db8:0:0::5", "2001:db8::5")).toEqual({ client: "198.51.100.7" });
    expect(await forwarded("198.51.100.7, 2001:db8::6", "2001:db8::5")).toEqual({ client: "2001:db8::/64" });
    // Not a port: the hop is not an address.
    expect(await forwarded("198.51.100.7:http")).toEqual({ client: UNKNOWN_CLIENT, warning: "invalid-ip" });
    expect(await forwarded("2001:db8::1:443")).toEqual({ client: "2001:db8::/64" });
  });

  it("Should put clients without a usable address in one bucket, with a warning, and never throw", async () => {
    expect(await identify(new Headers(), byIp)).toEqual({ client: UNKNOWN_CLIENT, warning: "missing-ip" });
    expect(await identify(new Headers({ "cf-connecting-ip": "not-an-ip" }), byIp)).toEqual({ client: UNKNOWN_CLIENT, warning: "invalid-ip" });
  });

  it("Should hash header keys, so the key itself never reaches Redis", async () => {
    const identity = await identify(new Headers({ "x-api-key": "sk_live_secret", "cf-connecting-ip": "203.0.113.7" }), byKey);
    expect(identity.client).toMatch(/^key:[0-9a-f]{32}$/);
    expect(identity.client).not.toContain("secret");
    expect(await identify(new Headers({ "x-api-key": "sk_live_secret" }), byKey)).toEqual(identity);
  });

  it("Should fall back to the address when the key is missing or longer than the cap", async () => {
    const ip = { "cf-connecting-ip": "203.0.113.7" };
    expect(await identify(new Headers(ip), byKey)).toEqual({ client: "203.0.113.7", warning: "missing-key" });
    const longest = "k".repeat(MAX_KEY_LENGTH);
    expect(await identify(new Headers({ ...ip, "x-api-key": longest }), byKey)).toEqual({ client: `key:${await sha256Hex(longest)}` });
    const long = "k".repeat(MAX_KEY_LENGTH + 1);
    expect(await identify(new Headers({ ...ip, "x-api-key": long }), byKey)).toEqual({ client: "203.0.113.7", warning: "key-too-long" });
  });

  it("Should count a bearer JWT or a session cookie of a few KiB as a key, not fall back to the address", async () => {
    const jwt = `Bearer eyJhbGciOiJSUzI1NiJ9.${"e".repeat(1_500)}.${"s".repeat(342)}`;
    const options = { ...byIp, key: { kind: "header" as const, name: "authorization" } };
    const [first, second] = await Promise.all(
      ["203.0.113.7", "198.51.100.9"].map((address) => identify(new Headers({ "cf-connecting-ip": address, authorization: jwt }), options)),
    );
    expect(first).toEqual(second);
    expect(first!.client).toMatch(/^key:[0-9a-f]{32}$/);
  });

  it("Should count one Authorization credential as one client whatever the scheme's case and the spaces after it", async () => {
    const options = { ...byIp, key: { kind: "header" as const, name: "authorization" } };
    const bearer = await identify(new Headers({ authorization: "Bearer abc" }), options);
    for (const authorization of ["bearer abc", "BEARER abc", "Bearer  abc", "bEaReR   abc", "Bearer\tabc", "Bearer \t abc"]) {
      expect(await identify(new Headers({ authorization }), options), authorization).toEqual(bearer);
    }
    // Hashed as most clients send it, so that entries stored before the scheme was read so still apply.
    expect(bearer).toEqual({ client: `key:${await sha256Hex("Bearer abc")}` });
    // The credentials themselves are case-sensitive (a token68 is), and other headers are kept as sent.
    expect(await identify(new Headers({ authorization: "Bearer ABC" }), options)).not.toEqual(bearer);
    expect(await identify(new Headers({ "x-api-key": "Bearer  abc" }), byKey)).toEqual({ client: `key:${await sha256Hex("Bearer  abc")}` });
  });

  it("Should count a Bearer or Basic credential with a space or a comma in it as no key, since origins differ on which part they read, so junk added to a token is no new client", async () => {
    const options = { ...byIp, key: { kind: "header" as const, name: "authorization" } };
    const missing = { client: "203.0.113.7", warning: "missing-key" };
    const address = { "cf-connecting-ip": "203.0.113.7" };
    // Laravel's bearerToken() reads what follows the last `Bearer `, whatever comes before it.
    for (const authorization of [
      "Bearer abc junk1",
      "Bearer abc,junk2",
      "Bearer junk3 Bearer abc",
      "Basic dXNlcjpwYXNz x",
      "Foo4 Bearer abc",
      "xBearer abc",
      "Token t bearer abc",
      // Python's split() reads \v, \f and U+00A0 as whitespace too; no token holds a control or non-ASCII character.
      "Bearer\vabc",
      "Token abc\f",
      "Bearer\u00a0abc",
    ]) {
      expect(await identify(new Headers({ ...address, authorization }), options), authorization).toEqual(missing);
    }
    // A token with other characters (Laravel Sanctum's `<id>|<secret>`) is kept whole, as is any other scheme's credentials.
    expect(await identify(new Headers({ authorization: "Bearer 7|s3cret" }), options)).toEqual({ client: `key:${await sha256Hex("Bearer 7|s3cret")}` });
    const digest = 'Digest username="a", realm="b"';
    expect(await identify(new Headers({ authorization: digest }), options)).toEqual({ client: `key:${await sha256Hex(digest)}` });
  });

  it("Should count one Basic credential as one client however its base64 is spelled, since origins decode it leniently, and one strict decoding refuses as no key", async () => {
    const options = { ...byIp, key: { kind: "header" as const, name: "authorization" } };
    const address = { "cf-connecting-ip": "203.0.113.7" };
    // All `user:pass!` to npm basic-auth (Buffer.from(…, "base64")) and Python's base64.b64decode.
    const canonical = "dXNlcjpwYXNzIQ==";
    const user = { client: `key:${await sha256Hex(`Basic ${canonical}`)}` };
    for (const spelling of [canonical, "dXNlcjpwYXNzIQ", "dXNlcjpwYXNzIR==", "dXNlcjpwYXNzIT=="]) {
      expect(await identify(new Headers({ authorization: `basic ${spelling}` }), options), spelling).toEqual(user);
    }
    for (const spelling of ["dXNlcjpwYXNzIQ===", "dXNlcjpwYXNzIQ==.", "dXNl~cjpwYXNzIQ==", "dXNlcjpwYXNzI"]) {
      expect(await identify(new Headers({ ...address, authorization: `Basic ${spelling}` }), options), spelling).toEqual({
        client: "203.0.113.7",
        warning: "missing-key",
      });
    }
  });

  const ip = { "cf-connecting-ip": "203.0.113.7" };
  const by = (key: KeySource) => ({ ...byIp, key });

  it("Should read the cookie of that name, decoded, and hash it", async () => {
    const options = by({ kind: "cookie", name: "sid" });
    const identity = await identify(new Headers({ ...ip, cookie: "theme=dark; sid=s%3Aabc; sid=s%3Aabc" }), options);
    expect(identity.client).toMatch(/^cookie:[0-9a-f]{32}$/);
    expect(await identify(new Headers({ cookie: "sid=s%3Aabc" }), options)).toEqual(identity);
    expect(await identify(new Headers({ cookie: "sid=s:abc" }), options)).toEqual(identity);
    expect(await identify(new Headers({ cookie: "sid=s:abd" }), options)).not.toEqual(identity);
    expect(await identify(new Headers({ ...ip, cookie: "xsid=1; sid2=2; sid=" }), options)).toEqual({ client: "203.0.113.7", warning: "missing-key" });
  });

  it("Should count a cookie read two ways as no key, so that junk beside a real session is no new client each time", async () => {
    const options = by({ kind: "cookie", name: "sessionid" });
    const missing = { client: "203.0.113.7", warning: "missing-key" };
    // Given twice with different values: Django and Starlette read the last, npm cookie, Rack, Go and PHP the first.
    for (const cookie of ["sessionid=junk1; sessionid=real", "sessionid=real; sessionid=junk2", "sessionid=; sessionid=real"]) {
      expect(await identify(new Headers({ ...ip, cookie }), options), cookie).toEqual(missing);
    }
    // Python's cookie parser reads \ooo escapes in a quoted value, which other libraries keep: "\162eal" is real there.
    for (const value of ['"\\162eal"', '"r\\145al"', '"\\r\\e\\a\\l"']) {
      expect(await identify(new Headers({ ...ip, cookie: `sessionid=${value}` }), options), value).toEqual(missing);
    }
  });

  it("Should count one session as one client however its cookie is spelt: quoted, percent-encoded, or in a second Cookie header", async () => {
    const options = by({ kind: "cookie", name: "session" });
    const abc = { client: `cookie:${await sha256Hex("abc")}` };
    // workerd joins two Cookie headers with ", " (RFC 9110 §5.3), so a pair may follow a comma.
    const twoHeaders = new Headers(ip);
    twoHeaders.append("cookie", "theme=dark");
    twoHeaders.append("cookie", "session=abc");
    expect(await identify(twoHeaders, options)).toEqual(abc);
    for (const cookie of ["session=abc", "session=%61bc", 'session="abc"', 'session="%61bc"', "session=abc, theme=dark", "theme=dark, session=abc"]) {
      expect(await identify(new Headers({ ...ip, cookie }), options), cookie).toEqual(abc);
    }
    // A pair after a comma does not beat a ";"-separated one: npm `cookie` reads `x=1,session=junk` as the cookie x.
    expect(await identify(new Headers({ ...ip, cookie: "x=1,session=junk; session=abc" }), options)).toEqual(abc);
    // Decoded once, as cookie libraries do: %2561 is "%61", not "a"; a malformed escape leaves the value as written.
    expect(await identify(new Headers({ ...ip, cookie: "session=%2561bc" }), options)).toEqual({ client: `cookie:${await sha256Hex("%61bc")}` });
    expect(await identify(new Headers({ ...ip, cookie: "session=%61bc%zz" }), options)).toEqual({ client: `cookie:${await sha256Hex("%61bc%zz")}` });
    expect(await identify(new Headers({ ...ip, cookie: 'session=""' }), options)).toEqual({ client: "203.0.113.7", warning: "missing-key" });
  });

  it("Should read the query parameter from the URL, and fall back to the address without one", async () => {
    const options = by({ kind: "query", name: "api_key" });
    const identity = await identify(new Headers(ip), options, { url: "https://example.com/x?a=1&api_key=secret&b=2" });
    expect(identity.client).toMatch(/^query:[0-9a-f]{32}$/);
    expect(identity.client).not.toContain("secret");
    expect(await identify(new Headers(ip), options, { url: "https://example.com/x?api_key=secret" })).toEqual(identity);
    expect(await identify(new Headers(ip), options)).toEqual({ client: "203.0.113.7", warning: "missing-key" });
  });

  it("Should treat a query parameter given more than once as a missing key, so junk first values cannot rotate a client's budget", async () => {
    const options = by({ kind: "query", name: "api_key" });
    const missing = { client: "203.0.113.7", warning: "missing-key" };
    for (const query of ["api_key=x1&api_key=REAL", "api_key=REAL&api_key=REAL", "api_key=&api_key=REAL", "api%5Fkey=x1&api_key=REAL"]) {
      expect(await identify(new Headers(ip), options, { url: `https://example.com/x?${query}` }), query).toEqual(missing);
    }
  });

  it("Should treat a name PHP reads as the same parameter (`.`, space or an unclosed `[` for `_`, an array's base name) as given twice", async () => {
    const options = by({ kind: "query", name: "api_key" });
    const missing = { client: "203.0.113.7", warning: "missing-key" };
    for (const query of [
      "api_key=x1&api.key=REAL",
      "api+key=REAL&api_key=x2",
      "api_key=x3&%20api.key=REAL",
      "api_key=x4&api[key=REAL",
      "api_key=x5&api_key[]=REAL",
      // PHP reads a name as a C string: it ends at a NUL.
      "api_key=x6&api_key%00=REAL",
      "api_key=x7&api_key%00junk=REAL",
    ]) {
      expect(await identify(new Headers(ip), options, { url: `https://example.com/x?${query}` }), query).toEqual(missing);
    }
    const alone = await identify(new Headers(ip), options, { url: "https://example.com/x?api_key=REAL&apikey=x4&api-key=x5" });
    expect(alone.client).toMatch(/^query:/);
    // After a `[` that no `]` closes, PHP 7 changes that `[` alone (`api[key.x` is `api_key.x`) and PHP 8 the rest too (`api_key_x`): other names.
    const other = await identify(new Headers(ip), options, { url: "https://example.com/x?api_key=REAL&api[key.x=1" });
    expect(other).toEqual(alone);
    // But PHP 8 reads `x[api.key` as `x_api_key`.
    const longer = by({ kind: "query", name: "x_api_key" });
    expect(await identify(new Headers(ip), longer, { url: "https://example.com/x?x_api_key=x8&x[api.key=REAL" })).toEqual(missing);
  });

  it("Should treat a key whose value holds a `;`, or that a `;`-separated piece names again, as missing, since Rack before 3 and http4s split queries at `;` too", async () => {
    const options = by({ kind: "query", name: "api_key" });
    const missing = { client: "203.0.113.7", warning: "missing-key" };
    for (const query of ["api_key=x1&x=1;api_key=REAL", "api_key=REAL;x2", "x=1;api_key=REAL&api_key=x3"]) {
      expect(await identify(new Headers(ip), options, { url: `https://example.com/x?${query}` }), query).toEqual(missing);
    }
    const semicolonElsewhere = await identify(new Headers(ip), options, { url: "https://example.com/x?api_key=REAL&q=a;b" });
    expect(semicolonElsewhere.client).toMatch(/^query:/);
  });

  it("Should key on Cloudflare's AS number and country in the clear, and fall back without them", async () => {
    expect(await identify(new Headers(ip), by({ kind: "cf", field: "asn" }), { cf: { asn: 13335 } })).toEqual({ client: "asn:13335" });
    expect(await identify(new Headers(ip), by({ kind: "cf", field: "country" }), { cf: { country: "de" } })).toEqual({ client: "country:DE" });
    expect(await identify(new Headers(ip), by({ kind: "cf", field: "country" }), { cf: { country: "{x}" } })).toEqual({
      client: "203.0.113.7",
      warning: "missing-key",
    });
    expect(await identify(new Headers(ip), by({ kind: "cf", field: "asn" }))).toEqual({ client: "203.0.113.7", warning: "missing-key" });
  });

  it("Should hash a composite's parts length-prefixed, so shifting a separator makes another client", async () => {
    const options = by({
      kind: "composite",
      parts: [
        { kind: "header", name: "x-a" },
        { kind: "header", name: "x-b" },
      ],
    });
    const first = await identify(new Headers({ "x-a": "a|b", "x-b": "c" }), options);
    const second = await identify(new Headers({ "x-a": "a", "x-b": "b|c" }), options);
    expect(first.client).toMatch(/^multi:[0-9a-f]{32}$/);
    expect(second.client).not.toBe(first.client);
  });

  it("Should count a composite with the address per address group, and fall back when any part is missing", async () => {
    const options = by({ kind: "composite", parts: [{ kind: "ip" }, { kind: "header", name: "user-agent" }] });
    const a = await identify(new Headers({ "cf-connecting-ip": "2001:db8:1:2::a", "user-agent": "curl" }), options);
    const b = await identify(new Headers({ "cf-connecting-ip": "2001:db8:1:2::b", "user-agent": "curl" }), options);
    expect(b).toEqual(a);
    expect(await identify(new Headers({ ...ip }), options)).toEqual({ client: "203.0.113.7", warning: "missing-key" });
    expect(await identify(new Headers({ "user-agent": "curl" }), options)).toEqual({ client: UNKNOWN_CLIENT, warning: "missing-ip" });
    const long = "u".repeat(MAX_KEY_LENGTH + 1);
    expect(await identify(new Headers({ ...ip, "user-agent": long }), options)).toEqual({ client: "203.0.113.7", warning: "key-too-long" });
  });

  it("Should build, for every source but the address, an identifier the admin API takes as it is", async () => {
    const headers = new Headers({ ...ip, "x-api-key": "k", cookie: "sid=s", "user-agent": "curl" });
    const sources: KeySource[] = [
      { kind: "header", name: "x-api-key" },
      { kind: "cookie", name: "sid" },
      { kind: "query", name: "api_key" },
      { kind: "cf", field: "asn" },
      { kind: "cf", field: "country" },
      { kind: "composite", parts: [{ kind: "ip" }, { kind: "header", name: "user-agent" }] },
    ];
    for (const key of sources) {
      const { client } = await identify(headers, by(key), { url: "https://example.com/?api_key=q", cf: { asn: 13335, country: "de" } });
      expect(isIdentifier(client), client).toBe(true);
    }
    expect([isIdentifier("203.0.113.7"), isIdentifier("2001:db8::/64"), isIdentifier(UNKNOWN_CLIENT), isIdentifier("key:not-a-hash")]).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
