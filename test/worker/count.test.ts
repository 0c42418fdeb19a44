import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { testApp, uniqueIpv4 } from "./helpers.ts";

/** An origin that answers 401 to a wrong password and 200 otherwise, counting what reaches it. */
function loginOrigin() {
  const reached = { total: 0 };
  const fetch = async (input: RequestInfo | URL) => {
    reached.total++;
    return new Response("", { status: String(input instanceof Request ? input.url : input).includes("wrong") ? 401 : 200 });
  };
  return { reached, fetch };
}

/** The app, and a way to send a request and wait for its waitUntil work (the deferred charge). */
function loginApp(rules: string) {
  const origin = loginOrigin();
  // A generous Redis bound: on a loaded machine, 40 calls at once can outlast the 500 ms default,
  // and a call that fails open would be forwarded uncounted, which is not what these tests measure.
  const t = testApp({ ROUTES: [{ pattern: "*/login*", name: "login", rules, count: [401] }], REDIS_TIMEOUT_MS: "10000" }, { originFetch: origin.fetch });
  const send = async (path: string, ip: string) => {
    const pending: Promise<unknown>[] = [];
    const ctx = { waitUntil: (work: Promise<unknown>) => pending.push(work), passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
    const res = await t.app.request(`https://example.com${path}`, { headers: { "cf-connecting-ip": ip } }, env, ctx);
    await Promise.all(pending);
    return res.status;
  };
  return { t, origin, send };
}

describe("count: only the answers that matter", () => {
  it("Should never count a successful login, however many", async () => {
    const { send } = loginApp("3/1m");
    const ip = uniqueIpv4();
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push(await send("/login?pw=right", ip));
    expect(statuses).toEqual(Array(10).fill(200));
  });

  it("Should count failed logins after the origin answers, and refuse once they reach the limit, successes included", async () => {
    const { send, origin } = loginApp("3/1m");
    const ip = uniqueIpv4();
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await send("/login?pw=wrong", ip));
    statuses.push(await send("/login?pw=wrong", ip), await send("/login?pw=right", ip));
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expect(origin.reached.total).toBe(3);
  });

  it("Should overshoot by at most the requests in flight when the budget runs out, and never count past the limit", async () => {
    const { send, origin, t } = loginApp("5/1m");
    const ip = uniqueIpv4();
    const concurrency = 40;
    const statuses = await Promise.all(Array.from({ length: concurrency }, () => send("/login?pw=wrong", ip)));
    const forwarded = statuses.filter((status) => status === 401).length;
    console.log(`count: ${concurrency} concurrent failed logins on a 5/1m route: ${forwarded} reached the origin (bound: 5 + ${concurrency - 1})`);
    expect(forwarded).toBe(origin.reached.total);
    expect(forwarded).toBeGreaterThanOrEqual(5);
    expect(forwarded).toBeLessThanOrEqual(5 + concurrency - 1);
    // The counter itself is exact: a charge the limit refuses writes nothing.
    expect(await send("/login?pw=wrong", ip)).toBe(429);
    expect(t.logs.filter((entry) => entry.event === "refusal")).toHaveLength(1);
  });
});
