import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { rateLimit, type RateLimitState } from "ratewall/middleware";
import { describe, expect, it } from "vitest";
import { testApp, uniqueIpv4, uniquePrefix } from "./helpers.ts";

const ADMIN_TOKEN = "adm1n-t0ken-for-the-multi-key-tests-0123456789";

/** A route counting each address per minute and each API key per day, in one decision. */
function apiApp(perIp: string, perKey: string, deps: Parameters<typeof testApp>[1] = {}, vars: Record<string, string> = {}) {
  const t = testApp(
    {
      ...vars,
      ADMIN_TOKEN,
      ROUTES: [
        {
          pattern: "*/v1/*",
          name: "api",
          key: "ip",
          rules: [
            { limit: Number(perIp), window: "1m", key: "ip", name: "per-ip" },
            { limit: Number(perKey), window: "1d", key: "header:x-api-key", name: "per-key" },
          ],
        },
      ],
    },
    deps,
  );
  const call = (ip: string, apiKey?: string) => t.get("/v1/items", ip, apiKey === undefined ? {} : { "x-api-key": apiKey, accept: "application/json" });
  return { ...t, call };
}

const detail = async (res: Response) => ((await res.json()) as { detail: string }).detail;
const uniqueKey = () => `sk_${uniquePrefix()}`;

describe("several keyed limits on one route, end to end through the shim and Redis", () => {
  it("Should refuse one API key used from two addresses on the 4th request overall, since the key's rule is shared across addresses", async () => {
    const t = apiApp("100", "3");
    const [a, b] = [uniqueIpv4(), uniqueIpv4()];
    const key = uniqueKey();
    const statuses = [];
    for (const ip of [a, b, a, b]) statuses.push((await t.call(ip, key)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await t.call(a, key);
    expect(await detail(refused)).toMatch(/^Rate limit "per-key" exceeded; retry after \d+ s\.$/);
    expect((await t.call(a, uniqueKey())).status).toBe(200);
  });

  it("Should charge neither rule for a refused request: a request the key's rule refuses leaves the address's quota, and one the address's rule refuses leaves the key's", async () => {
    const t = apiApp("4", "3");
    const a = uniqueIpv4();
    const [spent, other] = [uniqueKey(), uniqueKey()];
    for (let i = 0; i < 3; i++) expect((await t.call(a, spent)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await t.call(a, spent)).status).toBe(429);
    // The address has used 3 of 4: the refused requests above did not count against it.
    expect((await t.call(a, other)).status).toBe(200);
    const byAddress = await t.call(a, other);
    expect(byAddress.status).toBe(429);
    expect(await detail(byAddress)).toMatch(/^Rate limit "per-ip" exceeded/);
    // The other key has used 1 of 3: the refusal by the address's rule did not count against it.
    const b = uniqueIpv4();
    expect([(await t.call(b, other)).status, (await t.call(b, other)).status, (await t.call(b, other)).status]).toEqual([200, 200, 429]);
  });

  it("Should give each address its own limit, whatever key it sends", async () => {
    const t = apiApp("2", "100");
    const [a, b] = [uniqueIpv4(), uniqueIpv4()];
    const key = uniqueKey();
    expect([(await t.call(a, key)).status, (await t.call(a, key)).status, (await t.call(a, key)).status]).toEqual([200, 200, 429]);
    expect((await t.call(a, uniqueKey())).status).toBe(429);
    expect((await t.call(b, key)).status).toBe(200);
  });

  it("Should block a spent key from isolate memory for every address, but neither the address that spent it nor other keys", async () => {
    const t = apiApp("100", "1");
    const [a, b] = [uniqueIpv4(), uniqueIpv4()];
    const key = uniqueKey();
    await t.call(a, key);
    expect((await t.call(a, key)).status).toBe(429);
    const calls = t.counter.redisCalls;
    expect((await t.call(b, key)).status).toBe(429);
    expect(t.counter.redisCalls).toBe(calls);
    expect((await t.call(a, uniqueKey())).status).toBe(200);
    expect(t.counter.redisCalls).toBe(calls + 1);
    expect(t.logs.filter((entry) => entry.event === "refusal")).toEqual([
      expect.objectContaining({ route: "api", rule: "per-key", client: expect.stringMatching(/^key:[0-9a-f]{32}$/) }),
    ]);
  });

  it("Should count a request without an API key against its address in the key's rule, with a missing-key warning", async () => {
    const t = apiApp("100", "2");
    const a = uniqueIpv4();
    expect([(await t.call(a)).status, (await t.call(a)).status, (await t.call(a)).status]).toEqual([200, 200, 429]);
    expect((await t.call(uniqueIpv4())).status).toBe(200);
    expect(t.logs).toContainEqual(expect.objectContaining({ event: "client-fallback", reason: "missing-key", route: "api" }));
  });

  it("Should not block an address that spent the key's rule without a key once it sends a key of its own", async () => {
    const t = apiApp("100", "2");
    const a = uniqueIpv4();
    expect([(await t.call(a)).status, (await t.call(a)).status, (await t.call(a)).status]).toEqual([200, 200, 429]);
    const withKey = await t.call(a, uniqueKey());
    expect(withKey.status).toBe(200);
    expect((await t.call(a)).status).toBe(429);
  });

  it("Should ask Redis again when the latest of the request's blocks is due for its re-check, even if another is fresh", async () => {
    const t = apiApp("2", "1");
    const a = uniqueIpv4();
    const key = uniqueKey();
    expect((await t.call(a, key)).status).toBe(200);
    expect((await t.call(a, key)).status).toBe(429); // The key is spent for a day.
    t.clock.now += 15_000; // Past the key block's re-check: an operator may have reset it since.
    const other = uniqueKey();
    expect((await t.call(a, other)).status).toBe(200);
    expect((await t.call(a, other)).status).toBe(429); // The address is spent for the minute.
    const calls = t.counter.redisCalls;
    expect((await t.call(a, key)).status).toBe(429);
    expect(t.counter.redisCalls).toBe(calls + 1);
  });

  it("Should give an answer from memory the Retry-After of the latest of the request's blocks", async () => {
    const t = apiApp("2", "3");
    // At noon UTC, so that the key's daily window has hours left, whatever the time of the run.
    t.clock.now = Math.floor(Date.now() / 86_400_000) * 86_400_000 + 43_200_000;
    const [a, b, c] = [uniqueIpv4(), uniqueIpv4(), uniqueIpv4()];
    const key = uniqueKey();
    for (const ip of [a, a, b]) expect((await t.call(ip, key)).status).toBe(200);
    // The address's block ends within the minute, the key's within the day.
    expect(Number((await t.call(a, uniqueKey())).headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(Number((await t.call(c, key)).headers.get("retry-after"))).toBeGreaterThan(3600);
    const calls = t.counter.redisCalls;
    const both = await t.call(a, key);
    expect(t.counter.redisCalls).toBe(calls);
    expect(both.status).toBe(429);
    expect(Number(both.headers.get("retry-after"))).toBeGreaterThan(3600);
  });
});

describe("the admin API on a route with several keyed limits", () => {
  it("Should deny an API key on every address, and an address with every key, until the entry is removed", async () => {
    const t = apiApp("100", "100");
    const [a, b] = [uniqueIpv4(), uniqueIpv4()];
    const key = uniqueKey();
    expect((await t.admin(`deny?key=${key}`, "POST")).status).toBe(200);
    expect([(await t.call(a, key)).status, (await t.call(b, key)).status, (await t.call(a, uniqueKey())).status]).toEqual([403, 403, 200]);
    expect((await t.admin(`deny?client=${b}&ttl=600`, "POST")).status).toBe(200);
    const denied = await t.call(b, uniqueKey());
    expect(denied.status).toBe(403);
    expect(Number(denied.headers.get("retry-after"))).toBeGreaterThan(590);
    expect(await (await t.admin(`deny?key=${key}`, "DELETE")).json()).toMatchObject({ deleted: true });
    expect((await t.call(a, key)).status).toBe(200);
  });

  it("Should answer 503 when the route's copy of an entry cannot be written, and deny once a retry succeeds", async () => {
    const failing = { copies: true };
    const t = apiApp("100", "100", {
      redisFetch: async (input, init) =>
        failing.copies && String(init?.body).includes("{route:api}") ? new Response("upstream down", { status: 502 }) : fetch(input, init),
    });
    const key = uniqueKey();
    const first = await t.admin(`deny?key=${key}`, "POST");
    expect(first.status).toBe(503);
    expect(await detail(first)).toBe("Redis could not be reached; retry (the change may have been applied in part).");
    failing.copies = false;
    expect((await t.admin(`deny?key=${key}`, "POST")).status).toBe(200);
    expect((await t.call(uniqueIpv4(), key)).status).toBe(403);
  });

  it("Should list the entries, and deny on a multi-key route deployed after them once they are copied to it", async () => {
    const KEY_PREFIX = uniquePrefix();
    const before = testApp({ ADMIN_TOKEN, KEY_PREFIX });
    const [ip, key] = [uniqueIpv4(), uniqueKey()];
    for (const path of [`deny?key=${key}`, `deny?client=${ip}&ttl=600`]) {
      expect((await before.admin(path, "POST")).status).toBe(200);
    }
    const after = apiApp("100", "100", {}, { KEY_PREFIX });
    const listed = (await (await after.admin("lists")).json()) as {
      entries: { client: string; list: string; ttlSeconds: number | null }[];
      next: string | null;
    };
    expect(listed).toEqual({
      entries: [
        { client: ip, list: "deny", ttlSeconds: 600 },
        { client: expect.stringMatching(/^key:/), list: "deny", ttlSeconds: null },
      ],
      next: null,
    });
    expect((await after.call(uniqueIpv4(), key)).status).toBe(200);
    expect(await (await after.admin("lists/copy", "POST")).json()).toEqual({ routes: ["api"], entries: 2, copied: 2, next: null });
    expect([(await after.call(uniqueIpv4(), key)).status, (await after.call(ip, uniqueKey())).status]).toEqual([403, 403]);
    expect(await (await after.admin("lists/copy", "POST")).json()).toMatchObject({ copied: 0 });
  });

  it("Should refuse a malformed cursor, and an offset other than the first page's, with a 400 naming the parameter and its value", async () => {
    const t = apiApp("100", "100");
    const res = await t.admin("lists?cursor=500");
    expect(res.status).toBe(400);
    expect(await detail(res)).toBe('Invalid cursor "500": expected the `next` of the previous page, as it was given.');
    const copy = await t.admin("lists/copy?offset=500", "POST");
    expect(copy.status).toBe(400);
    expect(await detail(copy)).toBe(
      'Invalid offset "500": pages follow `cursor`, the `next` of the previous page; only offset=0 is taken, for the first page.',
    );
    expect(await (await t.admin("lists?offset=0")).json()).toEqual({ entries: [], next: null });
  });

  it("Should show and reset with key= only the rules counting API keys, and with client= only those counting addresses", async () => {
    const t = apiApp("5", "3");
    const a = uniqueIpv4();
    const key = uniqueKey();
    for (let i = 0; i < 3; i++) await t.call(a, key);
    expect(await (await t.admin(`status?key=${key}&route=api`)).json()).toMatchObject({
      route: "api",
      list: null,
      rules: [{ name: "per-key", limit: 3, remaining: 0 }],
    });
    expect(await (await t.admin(`status?client=${a}&route=api`)).json()).toMatchObject({ client: a, rules: [{ name: "per-ip", limit: 5, remaining: 2 }] });
    expect((await t.call(a, key)).status).toBe(429);
    expect(await (await t.admin(`reset?key=${key}&route=api`, "POST")).json()).toMatchObject({ route: "api", deleted: 1 });
    expect((await t.call(uniqueIpv4(), key)).status).toBe(200);
    expect(await (await t.admin(`status?client=${a}&route=api`)).json()).toMatchObject({ rules: [{ name: "per-ip", remaining: 2 }] });
  });
});

describe("several keyed limits in your own Hono app", () => {
  it("Should tell a later handler which rule refused, and whose client it counted", async () => {
    const app = new Hono<{ Variables: { rateLimit?: RateLimitState } }>();
    app.use(
      "*",
      rateLimit({
        vars: {
          UPSTASH_REDIS_REST_URL: env.UPSTASH_REDIS_REST_URL,
          UPSTASH_REDIS_REST_TOKEN: env.UPSTASH_REDIS_REST_TOKEN,
          KEY_PREFIX: uniquePrefix(),
          MODE: "shadow",
          ROUTES: [{ pattern: "*/*", name: "api", rules: ["100/1m", { limit: 1, window: "1d", key: "header:x-api-key" }] }],
        },
        log: () => {},
      }),
    );
    app.get("/", (c) => c.json(c.var.rateLimit?.decision ?? null));
    const headers = { "cf-connecting-ip": uniqueIpv4(), "x-api-key": uniqueKey() };
    await app.request("/", { headers });
    const decision = await (await app.request("/", { headers })).json();
    expect(decision).toMatchObject({ allowed: false, rule: "rule-1", client: expect.stringMatching(/^key:[0-9a-f]{32}$/) });
  });
});
