import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rateLimit } from "../../src/middleware/rate-limit/index.ts";
import { startHarness, TOKEN, type Harness } from "./limiter/harness.ts";

let h: Harness;
let server: ServerType;
let port: number;

beforeAll(async () => {
  h = await startHarness();
  const vars = {
    UPSTASH_REDIS_REST_URL: h.shim.url,
    UPSTASH_REDIS_REST_TOKEN: TOKEN,
    RATE_LIMIT: "2/60s",
    RATE_LIMIT_ALGORITHM: "sliding-log",
    KEY_PREFIX: h.prefix(),
  };
  const app = new Hono();
  // README, "Using the middleware in your own Hono app": on Node the socket's peer is the client.
  app.use(rateLimit({ vars, clientAddress: (c) => getConnInfo(c).remote.address, log: () => {} }));
  app.get("*", (c) => c.text("ok"));
  server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise((resolve) => server.once("listening", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await h.close();
});

/** The status of one GET sent from `localAddress` (any of 127.0.0.0/8 on Linux), with a CF-Connecting-IP of the client's choosing. */
function statusFrom(localAddress: string, spoofed: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/", localAddress, agent: false, headers: { "cf-connecting-ip": spoofed } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode!));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the middleware in a Node server, with clientAddress from the socket", () => {
  it("Should count a client by its socket's address, so that writing a new CF-Connecting-IP on each request gains it nothing", async () => {
    const first = [await statusFrom("127.0.0.1", "203.0.113.1"), await statusFrom("127.0.0.1", "203.0.113.2"), await statusFrom("127.0.0.1", "203.0.113.3")];
    expect(first).toEqual([200, 200, 429]);
  });

  it("Should count another address on its own", async () => {
    expect(await statusFrom("127.0.0.2", "203.0.113.1")).toBe(200);
  });
});

describe("the middleware with a clock of its user's", () => {
  it("Should limit with a clock that has sub-millisecond precision, as performance.timeOrigin + performance.now() has", async () => {
    const logs: unknown[] = [];
    const vars = { UPSTASH_REDIS_REST_URL: h.shim.url, UPSTASH_REDIS_REST_TOKEN: TOKEN, KEY_PREFIX: h.prefix(), RATE_LIMIT: "1/60s" };
    const app = new Hono();
    app.use(rateLimit({ vars, clock: () => performance.timeOrigin + performance.now(), log: (entry) => logs.push(entry) }));
    app.all("*", (c) => c.text("ok"));
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await app.request("https://example.com/", { headers: { "cf-connecting-ip": "203.0.113.9" } })).status);
    expect(statuses).toEqual([200, 429, 429]);
    expect(logs.filter((entry) => (entry as { event: string }).event === "redis-failure")).toEqual([]);
  });
});

describe("the middleware with a log of its user's that ships lines elsewhere", () => {
  it("Should ignore an async log whose promise rejects, as it ignores one that throws, where the rejection would end the process", async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    // Vitest's own listener would fail the run on the rejection; this one records it instead.
    const vitests = process.listeners("unhandledRejection");
    process.removeAllListeners("unhandledRejection");
    process.on("unhandledRejection", record);
    try {
      const vars = { UPSTASH_REDIS_REST_URL: h.shim.url, UPSTASH_REDIS_REST_TOKEN: TOKEN, RATE_LIMIT: "1/60s", KEY_PREFIX: h.prefix() };
      const app = new Hono();
      app.use(rateLimit({ vars, clientAddress: () => "203.0.113.60", log: async () => Promise.reject(new Error("log service down")) }));
      app.get("/", (c) => c.text("ok"));
      // The second request is refused, which writes a `refusal` line.
      const statuses = [(await app.request("/")).status, (await app.request("/")).status];
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect([statuses, unhandled.map(String)]).toEqual([[200, 429], []]);
    } finally {
      process.off("unhandledRejection", record);
      for (const listener of vitests) process.on("unhandledRejection", listener);
    }
  });
});
