import { describe, expect, it } from "vitest";
import { AmbiguousPathError, compileRoutes } from "./match.ts";
import { normalizeForMatch } from "./normalize.ts";
import { parsePattern } from "./pattern.ts";

const route = (pattern: string) => ({ pattern });
const pick = (patterns: string[], url: string) => compileRoutes(patterns.map(route))(new URL(url))?.pattern;
/** Expects each URL of `cases` to pick its pattern among `patterns`; a failure names the URL. */
const expectPicks = (patterns: string[], cases: ReadonlyArray<readonly [url: string, expected: string]>) => {
  for (const [url, expected] of cases) expect(pick(patterns, url), url).toBe(expected);
};

describe("parsePattern", () => {
  it("Should read wrangler's route syntax", () => {
    expect(parsePattern("api.example.com/v1/*")).toMatchObject({ hostKind: "exact", host: "api.example.com", pathKind: "prefix", path: "/v1/" });
    expect(parsePattern("*.example.com/login*")).toMatchObject({ hostKind: "suffix", host: ".example.com", pathKind: "prefix", path: "/login" });
    expect(parsePattern("https://Example.com./health")).toMatchObject({ scheme: "https", host: "example.com", pathKind: "exact", path: "/health" });
    // A prefix may end in dots: "/.well-known" starts with "/.", and "/a/" ends with an empty segment.
    expect(parsePattern("example.com/.*")).toMatchObject({ pathKind: "prefix", path: "/." });
    expect(parsePattern("example.com/a/*")).toMatchObject({ pathKind: "prefix", path: "/a/" });
  });

  it("Should read a path with non-ASCII letters or percent-escapes as a request's path is read: decoded once, any case", () => {
    expect(parsePattern("example.com/café")).toMatchObject({ pathKind: "exact", path: "/café" });
    expect(parsePattern("example.com/docs/my%20file")).toMatchObject({ pathKind: "exact", path: "/docs/my file" });
    expect(parsePattern("example.com/ünï*")).toMatchObject({ pathKind: "prefix", path: "/ünï" });
    expect(parsePattern("example.com/CAF%C3%89")).toMatchObject({ path: "/café" });
    expect(parsePattern("example.com/100%25")).toMatchObject({ path: "/100%" });
    expect(parsePattern("example.com/cafe%CC%81")).toMatchObject({ path: "/café" });
  });

  it("Should read a host in any script as requests carry it, in its ASCII form (IDNA), so that a route on bücher.example meets its requests", () => {
    expect(parsePattern("bücher.example/*")).toMatchObject({ hostKind: "exact", host: "xn--bcher-kva.example" });
    expect(parsePattern("*.BÜCHER.example/api")).toMatchObject({ hostKind: "suffix", host: ".xn--bcher-kva.example" });
    expect(parsePattern("例え.テスト/*")).toMatchObject({ host: "xn--r8jz45g.xn--zckzah" });
    expect(parsePattern("ΚΟΣ-SHOP.example/*")).toMatchObject({ host: new URL("https://ΚΟΣ-SHOP.example").hostname });
    expect(parsePattern("*．bücher.example/*")).toMatchObject({ hostKind: "suffix", host: ".xn--bcher-kva.example" });
    expect(parsePattern("*ﬀ.example/*")).toMatchObject({ hostKind: "suffix", host: "ff.example" });
    expect(pick(["bücher.example/*"], "https://xn--bcher-kva.example/katalog")).toBe("bücher.example/*");
    expect(pick(["*.bücher.example/*"], `${new URL("https://shop.bücher.example/").origin}/katalog`)).toBe("*.bücher.example/*");
  });

  it.each([
    ["example.com", "missing path (write host/path, e.g. example.com/*)"],
    ["example.com/*/admin", "a * may only close the path"],
    ["api.*.com/*", "a * may only open the host, and a host holds letters, digits, dots and dashes"],
    ["a b.example/*", "a * may only open the host, and a host holds letters, digits, dots and dashes"],
    ["ex%41mple.com/*", "a * may only open the host, and a host holds letters, digits, dots and dashes"],
    [
      "*bücher.example/*",
      "a * before a label in another script than ASCII must be followed by a dot (*.bücher.example): its ASCII form (IDNA) is not a suffix of the longer label's",
    ],
    ["１２７.0.0.1/a", "an IP address is not a route host (routes are on your zone's host names)"],
    ["ü@evil.example/a", 'the host "ü@evil.example" is not a host name (letters of any script, digits, dots and dashes)'],
    ["bü%63her.example/*", 'the host "bü%63her.example" is not a host name (letters of any script, digits, dots and dashes)'],
    ["bü\u200dcher.example/*", 'the host "bü\u200dcher.example" is not a host name (letters of any script, digits, dots and dashes)'],
    ["*.．bücher.example/*", "a host has no empty labels (two dots in a row)"],
    ["a..example/*", "a host has no empty labels (two dots in a row)"],
    ["example.com:8080/*", "ports are not part of a route pattern"],
    ["example.com/a?b=1", "route patterns do not match query strings"],
    ["ftp://example.com/a", 'only http:// and https:// requests reach a Worker (got "ftp://")'],
    ["[::1]/a", "an IP address is not a route host (routes are on your zone's host names)"],
    ["127.0.0.1/a", "an IP address is not a route host (routes are on your zone's host names)"],
    ["*.0.0.1/a", "an IP address is not a route host (routes are on your zone's host names)"],
    ["example.0x7f/a", "an IP address is not a route host (routes are on your zone's host names)"],
    ["*.example.0X/a", "an IP address is not a route host (routes are on your zone's host names)"],
    ["example.com//b", 'the path has an empty segment, which no request has once its path is normalized (write "/b")'],
    ["example.com/a/../b*", 'the path has a ".." segment, which no request has once its path is normalized (write "/b*")'],
    ["example.com/a/./b", 'the path has a "." segment, which no request has once its path is normalized (write "/a/b")'],
    ["example.com/a/..", 'the path has a ".." segment, which no request has once its path is normalized (write "/")'],
    ["example.com/a%2F%2E%2E/b", 'the path has a ".." segment, which no request has once its path is normalized (write "/b")'],
    ["example.com/100%", "the path has a % that starts no escape of UTF-8 text (write a literal % as %25)"],
    ["example.com/caf%C3*", "the path has a % that starts no escape of UTF-8 text (write a literal % as %25)"],
    ["example.com/docs#intro", "route patterns do not match fragments (write a # of the path as %23)"],
    ["example.com/login;v=1", "a ; starts a segment's parameters, which requests are matched without (write a literal ; of the path as %3B)"],
  ])("Should explain why %s is not a pattern", (pattern, reason) => expect(parsePattern(pattern)).toBe(reason));
});

describe("compileRoutes precedence", () => {
  it("Should prefer an exact host over a wildcard host, whatever the declaration order", () => {
    expect(pick(["*.example.com/*", "api.example.com/*"], "https://api.example.com/x")).toBe("api.example.com/*");
  });

  it("Should prefer the longer literal path on the same host", () => {
    expect(pick(["api.example.com/*", "api.example.com/v1/login*", "api.example.com/v1/*"], "https://api.example.com/v1/login")).toBe(
      "api.example.com/v1/login*",
    );
  });

  it("Should prefer an exact path over a prefix of the same length, and otherwise keep declaration order", () => {
    expect(pick(["example.com/login*", "example.com/login"], "https://example.com/login")).toBe("example.com/login");
    // Exact beats prefix before a scheme counts: a scheme only breaks a tie between equals.
    for (const patterns of [
      ["https://example.com/api/*", "example.com/api"],
      ["example.com/api", "https://example.com/api/*"],
    ]) {
      expect(pick(patterns, "https://example.com/api/")).toBe("example.com/api");
    }
    expect(pick(["*example.com/*", "*example.com/*"], "https://example.com/")).toBe("*example.com/*");
  });

  it("Should match *.example.com on subdomains only, and *example.com on the apex too", () => {
    expect(pick(["*.example.com/*"], "https://example.com/")).toBeUndefined();
    expect(pick(["*.example.com/*"], "https://www.example.com.evil.test/")).toBeUndefined();
    expect(pick(["*example.com/*"], "https://example.com/")).toBe("*example.com/*");
    expect(pick(["*/*"], "https://anything.test/x")).toBe("*/*");
  });

  it("Should honour a scheme in the pattern", () => {
    expect(pick(["http://example.com/*"], "https://example.com/")).toBeUndefined();
    expect(pick(["http://example.com/*"], "http://example.com/")).toBe("http://example.com/*");
  });
});

describe("normalizeForMatch", () => {
  it.each([
    ["https://EXAMPLE.com.:8443/login", "example.com", "/login"],
    ["https://example.com/public/../login", "example.com", "/login"],
    ["https://example.com/public/%2E%2E/login", "example.com", "/login"],
    ["https://example.com/%6Cogin", "example.com", "/login"],
    ["https://example.com/public%2F..%2Flogin", "example.com", "/login"],
    ["https://example.com//login", "example.com", "/login"],
    ["https://example.com/public\\..\\login", "example.com", "/login"],
    ["https://example.com/LOGIN", "example.com", "/login"],
    ["https://example.com/a/%zz/../b/", "example.com", "/a/b/"],
  ])("Should normalize %s", (url, host, path) => expect(normalizeForMatch(new URL(url))).toMatchObject({ host, path }));

  it("Should match an exact path with or without one trailing slash, as origins serve /login/ as /login", () => {
    for (const [pattern, url] of [
      ["example.com/login", "https://example.com/login/"],
      ["example.com/login/", "https://example.com/login"],
      ["example.com/login/", "https://example.com/login/"],
    ]) {
      expect(pick(["example.com/*", pattern!], url!)).toBe(pattern);
    }
    for (const other of ["https://example.com/login/x", "https://example.com/login/x/", "https://example.com/loginx/"]) {
      expect(pick(["example.com/*", "example.com/login"], other), other).toBe("example.com/*");
    }
    // An exact path stands for its trailing-slash form too, so it still beats a prefix of that length.
    for (const exact of ["example.com/api/", "example.com/api"]) {
      expect(pick(["example.com/api/*", exact], "https://example.com/api/")).toBe(exact);
      expect(pick(["example.com/api/*", exact], "https://example.com/api/x")).toBe("example.com/api/*");
    }
    expect(pick(["example.com/*", "example.com/"], "https://example.com/")).toBe("example.com/");
  });

  it("Should match a non-ASCII or escaped pattern on every spelling the normalizer reads as its path", () => {
    const patterns = ["example.com/*", "example.com/café", "example.com/docs/my%20file", "example.com/ünï*"];
    expectPicks(patterns, [
      ["https://example.com/caf%C3%A9", "example.com/café"],
      ["https://example.com/CAF%C3%89/", "example.com/café"],
      ["https://example.com/café", "example.com/café"],
      ["https://example.com/docs/my file", "example.com/docs/my%20file"],
      ["https://example.com/docs/my%20file", "example.com/docs/my%20file"],
      // Decoded once: `%2520` is the text "%20", another path.
      ["https://example.com/docs/my%2520file", "example.com/*"],
      ["https://example.com/%C3%9CN%C3%8F/x", "example.com/ünï*"],
      // A malformed escape elsewhere leaves the valid ones decoded.
      ["https://example.com/%C3%BCn%C3%AF/%zz", "example.com/ünï*"],
    ]);
  });

  it("Should refuse a path whose combining mark after a prefix joins the prefix's last letter, as composed and as sent routing differently", () => {
    // Composed (NFC), `h` + U+0307 is one letter `ḣ` and `/searcḣ` no longer starts with
    // `/search`; an origin that routes by the bytes sent (nginx's `location /search`) serves it
    // under `/search`, so neither route is surely the request's.
    const patterns = ["example.com/*", "example.com/search*", "example.com/login*"];
    for (const url of ["https://example.com/search%CC%87?q=x", "https://example.com/login%CC%83"]) {
      expect(() => pick(patterns, url), url).toThrow(AmbiguousPathError);
      expect(() => pick(patterns, url), url).toThrow("a combining mark after a route's prefix joins its last letter");
    }
  });

  it("Should refuse the combining mark after a prefix in every reading a dot segment makes, as sent", () => {
    const patterns = ["example.com/*", "example.com/search*"];
    // nginx keeps `..;` as a name and serves the first as /search…; Hono keeps %2F inside a
    // segment and serves the second so.
    for (const url of ["https://example.com/search%CC%87/..;/x", "https://example.com/search%CC%87%2F..%2Fx"]) {
      expect(() => pick(patterns, url), url).toThrow(AmbiguousPathError);
    }
  });

  it("Should route a long decomposed path (macOS file names) under a long non-ASCII prefix, however many marks it has", () => {
    const korean = "각".repeat(40);
    const patterns = ["example.com/*", `example.com/${korean}/*`];
    const decomposed = `https://example.com/${encodeURIComponent(korean.normalize("NFD"))}/file.txt`;
    expect(pick(patterns, decomposed)).toBe(`example.com/${korean}/*`);
    const marks = `https://example.com/${encodeURIComponent(`a${"\u0301".repeat(2000)}`)}`;
    expect(pick(["example.com/*", "example.com/á*", "example.com/b*"], marks)).toBe("example.com/á*");
  });

  it("Should route a decomposed or oddly ordered non-ASCII path as its composed form when both readings agree", () => {
    const patterns = ["example.com/*", "example.com/café*", "example.com/하*", "example.com/ΟΔΟΣ*"];
    expectPicks(patterns, [
      ["https://example.com/cafe%CC%81/menu", "example.com/café*"],
      // U+0316 sorts before the é's accent in canonical order, and the composed é stays a prefix.
      ["https://example.com/caf%C3%A9%CC%96", "example.com/café*"],
      // 한 is not 하 followed by a letter, composed or as sent.
      ["https://example.com/%ED%95%9C%EA%B5%AD", "example.com/*"],
      // Lowercased alone, `ΟΔΟΣ` ends in a final `ς`, and `ΟΔΟΣA` has a `σ` there: folded, both are `σ`.
      ["https://example.com/%CE%9F%CE%94%CE%9F%CE%A3A", "example.com/ΟΔΟΣ*"],
      ["https://example.com/οδος/x", "example.com/ΟΔΟΣ*"],
    ]);
  });

  it("Should keep a request with a disguised path on the stricter route", () => {
    const patterns = ["example.com/*", "example.com/login*"];
    for (const url of ["https://Example.com./%4cogin", "https://example.com/%2flogin", "https://example.com/static/%2e%2e/login"]) {
      expect(pick(patterns, url)).toBe("example.com/login*");
    }
  });

  // Origins differ on `%2F`: nginx decodes it and resolves the `..` it makes, most routers (Hono,
  // Express, Rails) keep it inside one segment. Where the two readings pick different routes, a
  // client could take whichever is less limited while the origin serves the other.
  it("Should refuse a path whose encoded slash makes a dot segment that the two readings route differently", () => {
    const patterns = ["*/api/*", "*/health", "example.com/login*", "example.com/static/*"];
    for (const url of [
      "https://example.com/api/users/42%2f..%2f..%2f..%2fhealth",
      "https://example.com/api/users/42%5C..%5C..%5C..%5Chealth",
      "https://example.com/static/..%2Flogin",
      "https://example.com/static%2F.%2F..%2F..%2Flogin",
    ]) {
      expect(() => pick(patterns, url), url).toThrow(AmbiguousPathError);
    }
    expect(() => pick(patterns, "https://example.com/api/users/42%2f..%2f..%2f..%2fhealth")).toThrow(
      'The path "/api/users/42%2f..%2f..%2f..%2fhealth" is ambiguous: an encoded slash (%2F or %5C) or a `;` parameter makes a dot segment there, which origins resolve differently',
    );
  });

  // Tomcat, Jetty and Spring drop a segment's `;parameters` before resolving dot segments, so
  // `/static/..;/login` is `/login` there and a segment named `..;` elsewhere.
  it("Should refuse a path whose `;` parameter hides a dot segment that the readings route differently", () => {
    const patterns = ["example.com/*", "example.com/login*", "example.com/static/*"];
    for (const url of [
      "https://example.com/static/..;/login",
      "https://example.com/static/..;jsessionid=1/login",
      "https://example.com/static/x/..;/..;/login",
    ]) {
      expect(() => pick(patterns, url), url).toThrow("a `;` parameter");
    }
    // Tomcat drops `;…` before decoding, so a `%2F` inside a parameter goes with it: `/login` there.
    expect(() => pick(["example.com/*", "example.com/login"], "https://example.com/a/..;x%2Fb/login")).toThrow("a `;` parameter");
    expect(pick(patterns, "https://example.com/static/.;x/a")).toBe("example.com/static/*");
  });

  it("Should match a path without its segments' `;parameters`, as Tomcat, Jetty and Spring serve it", () => {
    expect(pick(["example.com/*", "example.com/login"], "https://example.com/login;jsessionid=1")).toBe("example.com/login");
    expect(pick(["example.com/*", "example.com/login"], "https://example.com/login/;jsessionid=1")).toBe("example.com/login");
    expect(pick(["example.com/*", "example.com/api/*"], "https://example.com/api;v=1/users")).toBe("example.com/api/*");
    // A `%3B` is no separator there: it stays in the segment.
    expect(pick(["example.com/*", "example.com/login"], "https://example.com/login%3Bx")).toBe("example.com/*");
  });

  it("Should route such a path as usual when both readings pick the same route", () => {
    const patterns = ["*/api/*", "*/health"];
    expect(pick(patterns, "https://example.com/api/a%2F..%2Fb")).toBe("*/api/*");
    // A path ending in a dot segment ends in a slash once resolved (RFC 3986 §5.2.4), as the URL parser resolves `/api/x/..`.
    expect(pick(["*/search*", "*/api/*"], "https://example.com/api/x%2F..")).toBe("*/api/*");
    expect(pick(["*/search*", "*/api/*"], "https://example.com/api/x%2F.")).toBe("*/api/*");
    expect(pick(["*/health"], "https://example.com/x/y%2F..%2F..%2Fz")).toBeUndefined();
  });
});

describe("compileRoutes with methods", () => {
  const routes = [
    { pattern: "example.com/*", id: "site" },
    { pattern: "example.com/login*", id: "login-post", methods: ["POST"] },
    { pattern: "example.com/login*", id: "login-any" },
  ];
  const match = compileRoutes(routes);
  const id = (url: string, method?: string) => match(new URL(url), method)?.id;

  it("Should pick a route with methods only for those methods, in any letter case", () => {
    expect(id("https://example.com/login", "POST")).toBe("login-post");
    expect(id("https://example.com/login", "post")).toBe("login-post");
  });

  it("Should let other methods fall through to the next most specific route", () => {
    expect(id("https://example.com/login", "GET")).toBe("login-any");
    const only = compileRoutes([
      { pattern: "example.com/*", id: "site" },
      { pattern: "example.com/login*", id: "login-post", methods: ["POST"] },
    ]);
    expect(only(new URL("https://example.com/login"), "GET")?.id).toBe("site");
    expect(only(new URL("https://example.org/login"), "POST")).toBeUndefined();
  });

  it("Should prefer the route that names methods over an equally specific one declared first", () => {
    const reversed = compileRoutes([...routes].reverse());
    expect(reversed(new URL("https://example.com/login"), "POST")?.id).toBe("login-post");
  });

  it("Should let a route that lists GET take HEAD too, as origins answer HEAD with the GET handler (RFC 9110 §9.3.2)", () => {
    const reads = compileRoutes([
      { pattern: "example.com/*", id: "site" },
      { pattern: "example.com/export*", id: "export-get", methods: ["GET"] },
    ]);
    expect(reads(new URL("https://example.com/export"), "HEAD")?.id).toBe("export-get");
    expect(reads(new URL("https://example.com/export"), "head")?.id).toBe("export-get");
    expect(reads(new URL("https://example.com/export"), "OPTIONS")?.id).toBe("site");
    // A more specific route that lists HEAD still wins, and a route listing HEAD alone does not take GET.
    const both = compileRoutes([
      { pattern: "example.com/export*", id: "export-get", methods: ["GET"] },
      { pattern: "example.com/export/big", id: "big-head", methods: ["HEAD"] },
    ]);
    expect(both(new URL("https://example.com/export/big"), "HEAD")?.id).toBe("big-head");
    expect(both(new URL("https://example.com/export/big"), "GET")?.id).toBe("export-get");
  });

  it("Should ignore methods when called without one, as callers that predate them do", () => {
    expect(id("https://example.com/login")).toBe("login-post");
  });
});
