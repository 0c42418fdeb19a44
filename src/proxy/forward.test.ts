import { describe, expect, it } from "vitest";
import { OriginError } from "../errors.ts";
import { forwardToOrigin, targetUrl, urlParts } from "./forward.ts";

function recordingFetch(response = () => new Response("ok", { headers: { connection: "close", "x-origin": "1" } })) {
  const seen: Request[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    seen.push(new Request(input, init));
    return response();
  };
  return { seen, fetch: fetch as typeof globalThis.fetch };
}

describe("forwardToOrigin", () => {
  it("Should forward method, path, query, body and headers to the origin, minus hop-by-hop and internal ones", async () => {
    const { seen, fetch } = recordingFetch();
    const request = new Request("https://api.example.com/v1/items?q=a%20b&x=1", {
      method: "POST",
      body: "payload",
      headers: {
        "content-type": "text/plain",
        connection: "x-secret-hop",
        "x-secret-hop": "1",
        "keep-alive": "5",
        "x-ratewall-debug": "1",
        "upstash-encoding": "base64",
        expect: "100-continue",
        authorization: "Bearer client",
        "proxy-authorization": "Basic cHJveHk6c2VjcmV0",
      },
    });
    const res = await forwardToOrigin(request, { origin: "http://origin.test:8080", timeoutMs: 1000, fetch });
    const sent = seen[0]!;
    expect(sent.method).toBe("POST");
    expect(sent.url).toBe("http://origin.test:8080/v1/items?q=a%20b&x=1");
    expect(await sent.text()).toBe("payload");
    expect(Object.fromEntries(sent.headers)).toEqual({
      "content-type": "text/plain",
      authorization: "Bearer client",
      "x-forwarded-host": "api.example.com",
      "x-forwarded-proto": "https",
    });
    expect(res.headers.get("connection")).toBeNull();
    expect(res.headers.get("x-origin")).toBe("1");
  });

  it("Should drop an origin's x-ratewall- headers, which would pass its answer off as the admin API's", async () => {
    const { fetch } = recordingFetch(() => new Response("{}", { status: 401, headers: { "x-ratewall-admin": "1", "x-origin": "1" } }));
    const res = await forwardToOrigin(new Request("https://api.example.com/__ratewall/status"), { origin: "http://origin.test", timeoutMs: 1000, fetch });
    expect([res.headers.get("x-ratewall-admin"), res.headers.get("x-origin")]).toEqual([null, "1"]);
  });

  it("Should answer with an OriginError of kind timeout when the origin is too slow", async () => {
    const slow = (async (input: Request) =>
      new Promise<Response>((_resolve, reject) => input.signal.addEventListener("abort", () => reject(new Error("aborted"))))) as typeof fetch;
    const error = await forwardToOrigin(new Request("https://a.test/"), { timeoutMs: 20, fetch: slow }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OriginError);
    expect(error).toMatchObject({ kind: "timeout", message: "Origin https://a.test did not answer in time" });
  });

  it("Should answer with an OriginError of kind network when the origin cannot be reached", async () => {
    const down = (async () => {
      throw new TypeError("connection refused");
    }) as typeof fetch;
    const error = await forwardToOrigin(new Request("https://a.test/"), { origin: "http://127.0.0.1:9", timeoutMs: 1000, fetch: down }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: "OriginError", kind: "network", message: "Origin http://127.0.0.1:9 could not be reached" });
  });

  it("Should refuse to fetch a workers.dev URL back to itself when no origin is set", async () => {
    const { seen, fetch } = recordingFetch();
    const error = await forwardToOrigin(new Request("https://ratewall.me.workers.dev/x"), { timeoutMs: 1000, fetch }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      kind: "none",
      message: "Origin https://ratewall.me.workers.dev is the Worker itself: set ORIGIN_URL (a workers.dev URL has no origin behind it)",
    });
    // A host's trailing dot names the same host (RFC 1034 §3.1).
    expect(await forwardToOrigin(new Request("https://ratewall.me.workers.dev./x"), { timeoutMs: 1000, fetch }).catch((e: unknown) => e)).toMatchObject({
      kind: "none",
    });
    expect(seen).toHaveLength(0);
  });
});

describe("forwardToOrigin, an origin with a path prefix", () => {
  it("Should refuse, fetching nothing, a path whose encoded slashes or `;` parameters would climb above the origin's path as origins read it", async () => {
    const { seen, fetch } = recordingFetch();
    const origin = "http://internal.test/base";
    const climbing = ["/..%2Fadmin/secret.txt", "/x/..%2F..%2Fadmin", "/%2e%2e%2fadmin", "/..%5Cadmin", "/x/%2E%2E%2F%2E%2E%2Fadmin?q=1"];
    // Tomcat, Jetty and Spring drop a segment's `;` parameters before resolving it: `..;` is `..`.
    const withParameters = ["/..;/admin", "/x/..;/..;/admin;jsessionid=1", "/%2e%2e;/admin", "/..;x=1/admin", "/..;%2F../admin"];
    for (const path of [...climbing, ...withParameters]) {
      const error = await forwardToOrigin(new Request(`https://api.example.com${path}`), { origin, timeoutMs: 1000, fetch }).catch((e: unknown) => e);
      expect(error, path).toMatchObject({
        name: "OriginError",
        kind: "outside",
        message: "Origin http://internal.test would be asked for a path above its own",
      });
    }
    expect(seen).toHaveLength(0);
    // Within the prefix, or without one, such a path is the origin's to read.
    for (const [path, to] of [
      ["/x/..%2Fy", origin],
      ["/x/..;/y;v=1", origin],
      ["/..%2Fadmin", "http://internal.test"],
    ]) {
      expect((await forwardToOrigin(new Request(`https://api.example.com${path}`), { origin: to, timeoutMs: 1000, fetch })).status, path).toBe(200);
    }
    expect(seen.map((request) => request.url)).toEqual([
      "http://internal.test/base/x/..%2Fy",
      "http://internal.test/base/x/..;/y;v=1",
      "http://internal.test/..%2Fadmin",
    ]);
  });

  it("Should point an absolute Location or Content-Location at the origin back at the client on any status, as on a redirect", async () => {
    const { fetch } = recordingFetch(
      () =>
        new Response("made", {
          status: 201,
          headers: { location: "http://internal.test/base/items/9", "content-location": "http://internal.test/base/items/9" },
        }),
    );
    const res = await forwardToOrigin(new Request("https://api.example.com/items", { method: "POST", body: "{}" }), {
      origin: "http://internal.test/base",
      timeoutMs: 1000,
      fetch,
    });
    expect([res.status, res.headers.get("location"), res.headers.get("content-location")]).toEqual([
      201,
      "https://api.example.com/items/9",
      "https://api.example.com/items/9",
    ]);
  });

  // Two common origins under "/base": one that, as Next.js with basePath "/base", redirects "/base/"
  // to "/base"; one that, as Django's APPEND_SLASH or nginx's directory index, redirects "/base" to
  // "/base/". Both serve every other URL.
  const slashRedirects = {
    "drops the slash": (pathname: string) => (pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : undefined),
    "adds the slash": (pathname: string) => (pathname.endsWith("/") ? undefined : `${pathname}/`),
  };
  const slashOrigin = (redirectFor: (pathname: string) => string | undefined) => {
    const asked: string[] = [];
    const fetch = async (request: Request) => {
      const { pathname, search } = new URL(request.url);
      asked.push(`${request.method} ${pathname}${search}`);
      const to = redirectFor(pathname);
      return to === undefined ? new Response(`page ${pathname}`) : new Response(null, { status: 308, headers: { location: `${to}${search}` } });
    };
    return { asked, fetch: fetch as typeof globalThis.fetch };
  };

  it.each(Object.keys(slashRedirects).flatMap((kind) => ["http://internal.test/base", "http://internal.test/base/"].map((origin) => [kind, origin])))(
    "Should serve the client's root from an origin that %s at its prefix's root (ORIGIN_URL %s), never a redirect back to the root",
    async (kind, origin) => {
      for (const path of ["/", "/?tab=1"]) {
        const fake = slashOrigin(slashRedirects[kind as keyof typeof slashRedirects]);
        const res = await forwardToOrigin(new Request(`https://api.example.com${path}`), { origin, timeoutMs: 1000, fetch: fake.fetch });
        expect([res.status, await res.text()], path).toEqual([200, kind === "drops the slash" ? "page /base" : "page /base/"]);
      }
    },
  );

  it("Should release the body of the root redirect it follows, so the origin's connection is not held open until collected", async () => {
    let cancelled = false;
    const redirectBody = new ReadableStream({
      start: (controller) => controller.enqueue(new TextEncoder().encode("Redirecting to /base")),
      cancel: () => {
        cancelled = true;
      },
    });
    const answers = [new Response(redirectBody, { status: 308, headers: { location: "/base" } }), new Response("page /base")];
    const fetch = (async () => answers.shift()!) as unknown as typeof globalThis.fetch;
    const res = await forwardToOrigin(new Request("https://api.example.com/"), { origin: "http://internal.test/base", timeoutMs: 1000, fetch });
    expect([res.status, await res.text(), cancelled]).toEqual([200, "page /base", true]);
  });

  it("Should pass on every other redirect of the prefix's root, and one of a request with a body, which could not be sent twice", async () => {
    const fake = slashOrigin(slashRedirects["drops the slash"]);
    const post = await forwardToOrigin(new Request("https://api.example.com/", { method: "POST", body: "a=1" }), {
      origin: "http://internal.test/base",
      timeoutMs: 1000,
      fetch: fake.fetch,
    });
    const docs = await forwardToOrigin(new Request("https://api.example.com/docs/?v=2"), {
      origin: "http://internal.test/base",
      timeoutMs: 1000,
      fetch: fake.fetch,
    });
    expect([post.status, post.headers.get("location"), docs.status, docs.headers.get("location")]).toEqual([308, "/", 308, "/docs?v=2"]);
    expect(fake.asked).toEqual(["POST /base/", "GET /base/docs/?v=2"]);
    // From elsewhere to the prefix's root; no redirect; to another page; to another host's "/base"; one the URL parser refuses.
    const others: [path: string, status: number, location: string, passedOn: string][] = [
      ["/old", 301, "/base", "/"],
      ["/", 201, "/base", "/"],
      ["/", 302, "/base/login", "/login"],
      ["/", 302, "https://elsewhere.test/base", "https://elsewhere.test/base"],
      ["/?odd", 302, "http://[", "http://["],
    ];
    for (const [path, status, location, passedOn] of others) {
      const { seen, fetch } = recordingFetch(() => new Response(null, { status, headers: { location } }));
      const res = await forwardToOrigin(new Request(`https://api.example.com${path}`), { origin: "http://internal.test/base", timeoutMs: 1000, fetch });
      expect([res.status, res.headers.get("location"), seen.length], location).toEqual([status, passedOn, 1]);
    }
  });

  it("Should answer an interim 1xx that the runtime's fetch resolved with (103 Early Hints) with an OriginError naming it, not a network failure", async () => {
    const interim = (async () => ({ status: 103, body: null, headers: new Headers({ link: "</a.css>; rel=preload" }) })) as unknown as typeof fetch;
    const error = await forwardToOrigin(new Request("https://a.test/"), { origin: "http://origin.test", timeoutMs: 1000, fetch: interim }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: "OriginError", kind: "interim" });
  });
});

describe("forwardToOrigin without an origin", () => {
  it("Should send a zone route's origin no x-ratewall- header, and forward a request that carries one, as sent by a client", async () => {
    const { seen, fetch } = recordingFetch();
    for (let i = 0; i < 2; i++) {
      const headers: Record<string, string> = i === 0 ? {} : { "x-ratewall-forwarded-by": "sent-by-a-client" };
      expect((await forwardToOrigin(new Request("https://shop.example.com/x", { headers }), { timeoutMs: 1000, fetch })).status).toBe(200);
    }
    expect(seen.map((request) => [...request.headers.keys()].filter((name) => name.startsWith("x-ratewall-")))).toEqual([[], []]);
  });

  it("Should mark what it forwards on a local host, and refuse that request when it comes back", async () => {
    const { seen, fetch } = recordingFetch();
    await forwardToOrigin(new Request("http://localhost:8787/x"), { timeoutMs: 1000, fetch });
    const id = seen[0]!.headers.get("x-ratewall-forwarded-by");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const back = await forwardToOrigin(new Request("http://localhost:8787/x", { headers: { "x-ratewall-forwarded-by": id! } }), {
      timeoutMs: 1000,
      fetch,
    }).catch((e: unknown) => e);
    expect(back).toMatchObject({
      kind: "loop",
      message: "Origin http://localhost:8787 is the Worker itself: the request it forwarded came back to it; set ORIGIN_URL",
    });
    expect(seen).toHaveLength(1);
  });
});

describe("targetUrl", () => {
  it("Should keep the request's URL without an origin, and prefix an origin's path", () => {
    expect(targetUrl(urlParts("https://a.test/x?y=1"), undefined)).toBe("https://a.test/x?y=1");
    expect(targetUrl(urlParts("https://a.test/x?y=1"), "https://b.test/api/")).toBe("https://b.test/api/x?y=1");
    expect(targetUrl(urlParts("https://a.test/x?y=1"), "https://b.test")).toBe("https://b.test/x?y=1");
  });
});

describe("urlParts", () => {
  const cases = [
    "https://a.test/x?y=1",
    "http://a.test:8080/",
    "https://user:pw@a.test/x/y/?q=1&r=%20",
    "http://[::1]:8787/v1//users?page=2",
    "https://a.test/x#fragment",
    "https://a.test/x?y=1#fragment?z",
    "https://xn--bcher-kva.example/%E2%82%AC?q=%E2%82%AC",
  ];
  it.each(cases)("Should slice %s as the URL parser reads it, without its fragment", (href) => {
    const serialized = new Request(href).url;
    const url = new URL(serialized);
    expect(urlParts(serialized)).toEqual({
      protocol: url.protocol.slice(0, -1),
      host: url.host,
      origin: url.origin,
      pathAndQuery: `${url.pathname}${url.search}`,
    });
  });
});
