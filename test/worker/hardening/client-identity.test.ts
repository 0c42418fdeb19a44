import { env } from "cloudflare:workers";
import { Redis } from "@upstash/redis/cloudflare";
import { describe, expect, it } from "vitest";
import { testApp, uniqueIpv4, uniquePrefix } from "../helpers.ts";

// Who a request is counted against, under hostile headers. The client's bucket is read back from
// Redis (through the shim): the key is `<prefix>:fixed:{<client>}:<window>`.
const redis = Redis.fromEnv(env);

/** The client identities that have a counter under `prefix`. */
async function clientsIn(prefix: string): Promise<string[]> {
  const keys = await redis.keys(`${prefix}:fixed:*`);
  return [...new Set(keys.map((key) => /\{(.*)\}/.exec(key)![1]!))].sort();
}

const SPOOFS: Record<string, string>[] = [
  { "x-forwarded-for": "1.1.1.1" },
  { "x-forwarded-for": "1.1.1.1, 2.2.2.2, 3.3.3.3" },
  { "true-client-ip": "1.1.1.1" },
  { forwarded: "for=1.1.1.1;proto=https" },
  { forwarded: 'for="[2001:db8::1]:4711"' },
  { "x-real-ip": "1.1.1.1" },
  { "x-client-ip": "1.1.1.1" },
  { "x-cluster-client-ip": "1.1.1.1" },
  { "cf-connecting-ipv6": "2001:db8::1" },
];

describe("spoofed forwarding headers", () => {
  it("Should not change the client key: one CF-Connecting-IP is one bucket whatever else the request claims", async () => {
    const prefix = uniquePrefix();
    const t = testApp({ RATE_LIMIT: `${SPOOFS.length}/60s`, KEY_PREFIX: prefix });
    const ip = uniqueIpv4();
    for (const spoof of SPOOFS) expect((await t.get("/", ip, spoof)).status).toBe(200);
    const over = await t.get("/", ip, { "x-forwarded-for": uniqueIpv4(), "true-client-ip": uniqueIpv4() });
    expect(over.status).toBe(429);
    expect(await clientsIn(prefix)).toEqual([ip]);
  });

  it("Should not move a client onto another client's bucket by naming its address", async () => {
    const prefix = uniquePrefix();
    const t = testApp({ RATE_LIMIT: "1/60s", KEY_PREFIX: prefix });
    const victim = uniqueIpv4();
    const attacker = uniqueIpv4();
    expect((await t.get("/", victim)).status).toBe(200);
    for (const spoof of SPOOFS) {
      const named = Object.fromEntries(Object.entries(spoof).map(([name, value]) => [name, value.replace("1.1.1.1", victim)]));
      expect((await t.get("/", attacker, named)).status).toBe(spoof === SPOOFS[0] ? 200 : 429);
    }
    expect(await clientsIn(prefix)).toEqual([attacker, victim].sort());
  });

  it("Should not key a request without CF-Connecting-IP on the address it claims: it goes to the shared unknown bucket", async () => {
    const prefix = uniquePrefix();
    const t = testApp({ KEY_PREFIX: prefix });
    for (const spoof of SPOOFS) expect((await t.request("/", { headers: spoof })).status).toBe(200);
    expect(await clientsIn(prefix)).toEqual(["unknown"]);
    expect(t.logs.filter((entry) => entry.event === "client-fallback")).toEqual([expect.objectContaining({ reason: "missing-ip", client: "unknown" })]);
  });
});

describe("X-Forwarded-For behind trusted proxies", () => {
  it("Should count a hop written with a port as its address, and drop Cloudflare's hop in any spelling", async () => {
    const prefix = uniquePrefix();
    const t = testApp({ KEY_PREFIX: prefix, TRUSTED_PROXIES: "1" });
    const client = uniqueIpv4();
    const xffs = [`${client}:1234`, `${client}:1234, 2001:DB8::5`, `${client}, 2001:db8:0::5`, "[2001:db8:99:1::7]:443, 2001:db8::5"];
    for (const xff of xffs) expect((await t.request("/", { headers: { "cf-connecting-ip": "2001:db8::5", "x-forwarded-for": xff } })).status).toBe(200);
    expect(await clientsIn(prefix)).toEqual(["2001:db8:99:1::/64", client].sort());
    expect(t.logs.filter((entry) => entry.event === "client-fallback")).toEqual([]);
  });
});

describe("unusual and hostile CF-Connecting-IP values", () => {
  // [value, the identity the documented rule gives it] (src/keys/ip.ts, README "Client identity").
  const table: Array<[string, string]> = [
    ["203.0.113.7", "203.0.113.7"],
    ["  203.0.113.7\t", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["::FFFF:CB00:7107", "203.0.113.7"],
    ["0:0:0:0:0:ffff:203.0.113.7", "203.0.113.7"],
    ["2001:db8:aaaa:bbbb:1:2:3:4", "2001:db8:aaaa:bbbb::/64"],
    ["2001:DB8:AAAA:BBBB:ffff:ffff:ffff:ffff", "2001:db8:aaaa:bbbb::/64"],
    ["2001:0db8:aaaa:bbbb::1", "2001:db8:aaaa:bbbb::/64"],
    ["[2001:db8:aaaa:bbbb::1]", "2001:db8:aaaa:bbbb::/64"],
    ["fe80::1%eth0", "fe80::/64"],
    ["fe80::1%25eth0", "fe80::/64"],
    [`fe80::1%${"z".repeat(5000)}`, "fe80::/64"],
    ["1.2.3.4\u00a0", "1.2.3.4"],
    ["::1", "::/64"],
    ["::", "::/64"],
    ["2001:db8::", "2001:db8::/64"],
  ];

  it.each(table.map(([value, identity]) => [value.length > 40 ? `${value.slice(0, 20)}…` : value, value, identity]))(
    "Should count %j as the documented identity",
    async (_, value, identity) => {
      const prefix = uniquePrefix();
      const t = testApp({ KEY_PREFIX: prefix });
      const res = await t.request("/", { headers: { "cf-connecting-ip": value } });
      expect(res.status).toBe(200);
      expect(await clientsIn(prefix)).toEqual([identity]);
    },
  );

  const garbage = [
    "not-an-ip",
    "1.2.3",
    "1.2.3.4.5",
    "256.1.1.1",
    "01.2.3.4",
    "0x7f.0.0.1",
    "2130706433",
    "1.2.3.4, 5.6.7.8",
    "1.2.3.4:443",
    "[2001:db8::1]:443",
    "1::2::3",
    "2001:db8:1:2:3:4:5:6:7",
    "12345::",
    "::ffff:999.1.1.1",
    "unknown",
    "203.0.113.7}",
    "{203.0.113.7}",
    "rate:fixed:{1.1.1.1}",
    "%31.2.3.4",
    String.fromCharCode(...new TextEncoder().encode("١.٢.٣.٤")),
    "x".repeat(8192),
    "1".repeat(4000),
    ":".repeat(2000),
  ];

  it("Should put every garbage or oversized value in the shared unknown bucket, with one warning, never an error", async () => {
    const prefix = uniquePrefix();
    const t = testApp({ KEY_PREFIX: prefix, RATE_LIMIT: "1000/60s" });
    for (const value of garbage) {
      const res = await t.request("/", { headers: { "cf-connecting-ip": value } });
      expect({ value: value.slice(0, 40), status: res.status }).toEqual({ value: value.slice(0, 40), status: 200 });
    }
    expect(await clientsIn(prefix)).toEqual(["unknown"]);
    expect(t.logs.filter((entry) => entry.event === "client-fallback")).toEqual([expect.objectContaining({ reason: "invalid-ip", client: "unknown" })]);
    expect(t.logs.filter((entry) => entry.level === "error")).toEqual([]);
  });

  it("Should group every address of one IPv6 /64 into one bucket, so rotating inside it does not help", async () => {
    const prefix = uniquePrefix();
    const t = testApp({ KEY_PREFIX: prefix, RATE_LIMIT: "3/60s" });
    const statuses = [];
    for (const host of ["::1", "::2", ":dead:beef:0:1", ":ffff:ffff:ffff:ffff"]) statuses.push((await t.get("/", `2001:db8:77:88:${host}`)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
