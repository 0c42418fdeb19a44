import { describe, expect, it } from "vitest";
import { testApp, uniqueIpv4, uniquePrefix } from "./helpers.ts";

const ADMIN_TOKEN = "adm1n-t0ken-for-the-admin-client-tests-0123456789";

/** An app with the admin API on: `admin` calls it with the token, `clientOf` asks status whom a raw key names on a route. */
function adminApp(vars: Record<string, unknown>) {
  const t = testApp({ ADMIN_TOKEN, ...vars });
  const clientOf = async (key: string, route: string) =>
    ((await (await t.admin(`status?key=${encodeURIComponent(key)}&route=${route}`)).json()) as { client: string }).client;
  return { ...t, clientOf };
}

/** Routes keyed by a header, a cookie and the address, two requests a minute each. */
function keyedApp() {
  const t = adminApp({
    ROUTES: [
      { pattern: "*/hk/*", name: "hk", key: "header:x-api-key", rules: "2/1m" },
      { pattern: "*/ck/*", name: "ck", key: "cookie:session", rules: "2/1m" },
      { pattern: "*/ip/*", name: "ip", rules: "2/1m" },
      { pattern: "*/auth/*", name: "auth", key: "header:authorization", rules: "2/1m" },
    ],
  });
  /** Sends requests until the first 429, and returns the client its refusal log names. */
  const spend = async (path: string, headers: Record<string, string>) => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await t.get(path, uniqueIpv4(), headers)).status);
    expect(statuses).toEqual([200, 200, 429]);
    return t.logs.filter((entry) => entry.event === "refusal").at(-1)!.client as string;
  };
  return { ...t, spend };
}

describe("the admin API names a client as the logs do", () => {
  it("Should show and reset the client a refusal log names, on a header-keyed route", async () => {
    const t = keyedApp();
    const apiKey = `sk_${uniquePrefix()}`;
    const client = await t.spend("/hk/x", { "x-api-key": apiKey });
    expect(client).toMatch(/^key:[0-9a-f]{32}$/);
    expect(await (await t.admin(`status?client=${client}&route=hk`)).json()).toMatchObject({ client, rules: [{ remaining: 0 }] });
    expect(await (await t.admin(`reset?client=${client}&route=hk`, "POST")).json()).toMatchObject({ deleted: 1 });
    expect((await t.get("/hk/x", uniqueIpv4(), { "x-api-key": apiKey })).status).toBe(200);
  });

  it("Should hash key= as a cookie-keyed route hashes its cookie, so that status and reset find the counter the Worker spends", async () => {
    const t = keyedApp();
    const session = uniquePrefix();
    const client = await t.spend("/ck/x", { cookie: `session=${session}` });
    expect(client).toMatch(/^cookie:/);
    expect(await (await t.admin(`status?key=${session}&route=ck`)).json()).toMatchObject({ client, rules: [{ remaining: 0 }] });
    expect(await (await t.admin(`reset?key=${session}&route=ck`, "POST")).json()).toMatchObject({ deleted: 1 });
    expect((await t.get("/ck/x", uniqueIpv4(), { cookie: `session=${session}` })).status).toBe(200);
  });

  it("Should read key= as the route reads its value: an Authorization in any spelling of its scheme, a cookie percent-encoded", async () => {
    const t = keyedApp();
    const token = uniquePrefix();
    const auth = await t.spend("/auth/x", { authorization: `Bearer ${token}` });
    expect(await (await t.admin(`status?key=${encodeURIComponent(`BEARER  ${token}`)}&route=auth`)).json()).toMatchObject({ client: auth });
    const session = uniquePrefix();
    const cookie = await t.spend("/ck/x", { cookie: `session=${session}` });
    expect(
      await (await t.admin(`status?key=${encodeURIComponent(`"${session.replace(/./, (c) => `%${c.charCodeAt(0).toString(16)}`)}"`)}&route=ck`)).json(),
    ).toMatchObject({
      client: cookie,
    });
  });

  it("Should deny the client a log names on every route, by its identifier", async () => {
    const t = keyedApp();
    const session = uniquePrefix();
    const client = await t.spend("/ck/x", { cookie: `session=${session}` });
    expect((await t.admin(`deny?client=${client}`, "POST")).status).toBe(200);
    t.clock.now += 60_000; // a new window: the client would be admitted again, were it not denied
    expect((await t.get("/ck/y", uniqueIpv4(), { cookie: `session=${session}` })).status).toBe(403);
  });

  it("Should refuse with a 400 naming the route's key a client the route cannot count", async () => {
    const t = keyedApp();
    const res = await t.admin("status?key=abc&route=ip");
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toBe(
      'Route "ip" counts clients by ip, not by this kind of client; "client" names an address or an identifier as the logs print it, "key" the raw value of the route\'s key.',
    );
    expect((await t.admin("status?client=cookie:ba7816bf8f01cfea414140de5dae2223&route=hk")).status).toBe(400);
    expect((await t.admin("status?client=key:not-a-hash&route=hk")).status).toBe(400);
  });
});

describe("deny, allow and tier read key= as the routes' header keys do", () => {
  it("Should deny an Authorization value given with its scheme in another case, where Authorization is the header key", async () => {
    const t = adminApp({ ROUTES: [{ pattern: "*/auth/*", name: "auth", key: "header:authorization", rules: "2/1m" }] });
    const token = uniquePrefix();
    const shown = await t.clientOf(`bearer ${token}`, "auth");
    const denied = (await (await t.admin(`deny?key=${encodeURIComponent(`bearer ${token}`)}`, "POST")).json()) as { client: string };
    expect(denied.client).toBe(shown);
    expect((await t.get("/auth/x", uniqueIpv4(), { authorization: `bearer ${token}` })).status).toBe(403);
  });

  it("Should deny and tier another header's value as sent, spaces and case included", async () => {
    const t = adminApp({
      TIERS: { free: "1/1m", pro: "5/1m" },
      ROUTES: [
        { pattern: "*/hk/*", name: "hk", key: "header:x-api-key", rules: "100/1m" },
        { pattern: "*/tk/*", name: "tk", key: "header:x-api-key", tiers: "free" },
      ],
    });
    const denied = `acme corp ${uniquePrefix()}`;
    expect((await t.admin(`deny?key=${encodeURIComponent(denied)}`, "POST")).status).toBe(200);
    expect((await t.get("/hk/x", uniqueIpv4(), { "x-api-key": denied })).status).toBe(403);
    const pro = `bearer ${uniquePrefix()}`;
    expect((await t.admin(`tier?key=${encodeURIComponent(pro)}&tier=pro`, "POST")).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await t.get("/tk/x", uniqueIpv4(), { "x-api-key": pro })).status).toBe(200);
  });

  it("Should refuse a key= that Authorization and another header read as two clients, and take the client status names", async () => {
    const t = keyedApp();
    const token = uniquePrefix();
    expect((await t.admin(`deny?key=${encodeURIComponent(`bearer ${token}`)}`, "POST")).status).toBe(400);
    expect((await t.admin(`deny?client=${await t.clientOf(`bearer ${token}`, "auth")}`, "POST")).status).toBe(200);
    expect((await t.get("/auth/x", uniqueIpv4(), { authorization: `bearer ${token}` })).status).toBe(403);
    // A value both read alike is one client: denied on every route that counts it.
    const plain = `sk_${uniquePrefix()}`;
    expect((await t.admin(`deny?key=${plain}`, "POST")).status).toBe(200);
    expect((await t.get("/hk/x", uniqueIpv4(), { "x-api-key": plain })).status).toBe(403);
  });
});

describe("deny, allow and tier key=: what a request can send, and the routes that read the entry", () => {
  it("Should deny the client that sends a key pasted with a space or line break at its ends", async () => {
    const t = keyedApp();
    const apiKey = `sk_${uniquePrefix()}`;
    expect((await t.admin(`deny?key=${encodeURIComponent(`${apiKey}\n`)}`, "POST")).status).toBe(200);
    expect((await t.get("/hk/x", uniqueIpv4(), { "x-api-key": apiKey })).status).toBe(403);
    const token = uniquePrefix();
    expect((await t.admin(`deny?client=${await t.clientOf(` Bearer ${token} `, "auth")}`, "POST")).status).toBe(200);
    expect((await t.get("/auth/x", uniqueIpv4(), { authorization: `Bearer ${token}` })).status).toBe(403);
  });

  it("Should not refuse a tier or a deny for a route that reads neither (unlimited)", async () => {
    const t = adminApp({
      TIERS: { free: "1/1m", pro: "5/1m" },
      ROUTES: [
        { pattern: "*/tk/*", name: "tk", key: "header:x-api-key", tiers: "free" },
        { pattern: "*/auth/*", name: "auth", key: "header:authorization", unlimited: true },
      ],
    });
    const pro = `bearer ${uniquePrefix()}`;
    expect((await t.admin(`tier?key=${encodeURIComponent(pro)}&tier=pro`, "POST")).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await t.get("/tk/x", uniqueIpv4(), { "x-api-key": pro })).status).toBe(200);
  });
});
