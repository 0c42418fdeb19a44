import { describe, expect, it } from "vitest";
import { testApp, uniqueIpv4 } from "../helpers.ts";

// One strict route (1 per minute on /login), a lenient default and an unlimited public area: a
// spelling of /login that landed anywhere else would get a 200 after the login quota is spent.
const vars = {
  RATE_LIMIT: "1000/60s",
  ROUTES: JSON.stringify([
    { pattern: "example.com/login*", name: "login", rules: "1/60s" },
    { pattern: "*/public/*", name: "public", unlimited: true },
  ]),
};

const spellings = [
  "https://example.com/LOGIN",
  "https://example.com/Login/",
  "https://example.com/%6Cogin",
  "https://example.com/%4C%4F%47%49%4E",
  "https://example.com//login",
  "https://example.com/./login",
  "https://example.com/x/../login",
  "https://example.com/public/../login",
  "https://example.com/public/%2e%2e/login",
  "https://example.com/login%2F",
  "https://example.com/login;jsessionid=1",
  "https://example.com/login?next=/public/x",
  "https://example.com/login#public",
  "https://EXAMPLE.COM/login",
  "https://example.com./login",
  "https://example.com:8443/login",
  "https://ExAmPlE.cOm.:443/login",
  "http://example.com/login",
  "https://example.com/%zz/../login",
];

describe("path and host tricks", () => {
  it.each(spellings)("Should count %s on the login route, not on a less limited one", async (url) => {
    const t = testApp(vars);
    const ip = uniqueIpv4();
    expect((await t.get("/login", ip)).status).toBe(200);
    const trick = await t.request(url, { ip });
    expect(trick.status).toBe(429);
    expect(trick.headers.get("ratelimit-policy")).toBe('"default";q=1;w=60');
  });

  // nginx decodes %2F and resolves the `..` it makes (/login); Hono, Express and Rails keep it in
  // one segment (/public/…). Either route would let a client pick the other's origin path.
  it.each([
    "https://example.com/public%2F..%2Flogin",
    "https://example.com/public%2f%2e%2e%2flogin",
    "https://example.com/public/..%5Clogin",
    "https://example.com/login/x%2F..%2F..%2Fpublic/a",
    "https://example.com/public/..;/login",
  ])("Should refuse %s with 400, since origins route the dot segment its encoded slash or `;` makes differently", async (url) => {
    let forwarded = 0;
    const t = testApp(vars, {
      originFetch: async () => {
        forwarded++;
        return new Response("origin");
      },
    });
    const ip = uniqueIpv4();
    const refused = await t.request(url, { ip, headers: { accept: "application/json" } });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      status: 400,
      detail: expect.stringContaining("is ambiguous: an encoded slash (%2F or %5C) or a `;` parameter makes a dot segment there"),
    });
    expect(forwarded).toBe(0);
    // Logged once per isolate, so that an operator sees it without a flood of lines.
    expect((await t.request(url, { ip })).status).toBe(400);
    expect(t.logs.filter((entry) => entry.event === "ambiguous-path")).toEqual([
      { level: "warn", event: "ambiguous-path", path: new URL(url).pathname, reason: expect.stringContaining("is ambiguous") },
    ]);
    expect((await t.request("https://example.com/public/a%2F..%2Fb", { ip })).status).toBe(200);
  });

  it("Should refuse with 400 a path whose combining mark joins the login prefix's last letter, since origins that route by the bytes sent serve it as /login", async () => {
    const t = testApp(vars);
    const ip = uniqueIpv4();
    expect((await t.get("/login", ip)).status).toBe(200);
    for (const path of ["/login%CC%83", "/LOGIN%CC%83/x"]) expect((await t.get(path, ip)).status, path).toBe(400);
    expect((await t.get("/caf%C3%A9%CC%81", ip)).status).toBe(200);
  });

  it("Should keep counting the public area, other hosts and look-alike paths on their own routes", async () => {
    const t = testApp(vars);
    const ip = uniqueIpv4();
    expect((await t.get("/login", ip)).status).toBe(200);
    for (const url of [
      "https://example.com/public/login",
      "https://example.com/logout",
      "https://www.example.com/login",
      "https://example.com.evil.test/login",
      "https://example.com/api/login",
    ]) {
      const res = await t.request(url, { ip });
      expect({ url, status: res.status }).toEqual({ url, status: 200 });
    }
  });

  // An exact pattern, as README's login example writes it: origins serve /login/ as /login.
  it.each([
    "https://example.com/login/",
    "https://example.com/LOGIN/",
    "https://example.com/login%2F",
    "https://example.com//login//",
    "https://example.com/login/%2e",
    "https://example.com/login;jsessionid=1",
  ])("Should count %s on an exact /login route, not on the lenient default", async (url) => {
    const t = testApp({ RATE_LIMIT: "1000/60s", ROUTES: JSON.stringify([{ pattern: "example.com/login", name: "login", rules: "1/60s" }]) });
    const ip = uniqueIpv4();
    expect((await t.get("/login", ip)).status).toBe(200);
    const trick = await t.request(url, { ip });
    expect(trick.status).toBe(429);
    expect(trick.headers.get("ratelimit-policy")).toBe('"default";q=1;w=60');
  });

  it("Should never move a request onto another client's key, whatever the path or host says", async () => {
    const t = testApp(vars);
    const victim = uniqueIpv4();
    const attacker = uniqueIpv4();
    expect((await t.get("/login", victim)).status).toBe(200);
    expect((await t.request(`https://example.com/login/${victim}`, { ip: attacker })).status).toBe(200);
    expect((await t.request(`https://${victim}/login?ip=${victim}`, { ip: attacker, headers: { host: victim } })).status).toBe(200);
  });
});
