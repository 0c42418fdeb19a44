import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { Hono, type MiddlewareHandler } from "hono";
import { compress } from "hono/compress";
import { etag } from "hono/etag";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Origin, startOrigin } from "../../scripts/local/origin.ts";
import { rateLimit } from "../../src/middleware/rate-limit/index.ts";
import { startHarness, TOKEN, type Harness } from "./limiter/harness.ts";

// @hono/node-server answers with a lightweight Response of its own: headers set on it in place
// are lost when it is wrapped again, and its copy of a fetch() answer keeps immutable headers.
let h: Harness;
let origin: Origin;
const servers: ServerType[] = [];

beforeAll(async () => {
  h = await startHarness();
  origin = await startOrigin({ echo: false });
});

afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  await origin.close();
  await h.close();
});

/** A Node server of an app limited to 100 a minute, behind `outer` when given; its URL. */
async function limitedServer(outer?: MiddlewareHandler): Promise<string> {
  const vars = { UPSTASH_REDIS_REST_URL: h.shim.url, UPSTASH_REDIS_REST_TOKEN: TOKEN, RATE_LIMIT: "100/60s", KEY_PREFIX: h.prefix() };
  const app = new Hono();
  if (outer) app.use(outer);
  app.use(rateLimit({ vars, clientAddress: () => "203.0.113.50", log: () => {} }));
  app.get("/json", (c) => c.json({ text: "x".repeat(2000) }));
  app.get("/empty/:status", (c) => new Response("", { status: Number(c.req.param("status")) }));
  app.get("/proxy", () => fetch(origin.url));
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  servers.push(server);
  await new Promise((resolve) => server.once("listening", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("the rate-limit headers on @hono/node-server", () => {
  it("Should pass an origin's answer through a handler that returns fetch(), with the headers, not answer 500", async () => {
    const res = await fetch(`${await limitedServer()}/proxy`);
    expect([res.status, await res.text(), res.headers.get("ratelimit-policy")]).toEqual([200, "ok", '"default";q=100;w=60']);
  });

  it("Should keep an answer's status, Content-Length and headers, a 204's or 304's empty body included", async () => {
    const url = await limitedServer();
    const json = await fetch(`${url}/json`);
    expect([json.status, json.headers.get("content-length"), (await json.text()).length]).toEqual([200, "2011", 2011]);
    for (const status of [204, 304]) {
      const res = await fetch(`${url}/empty/${status}`);
      expect([res.status, res.headers.get("ratelimit-policy")], String(status)).toEqual([status, '"default";q=100;w=60']);
    }
  });

  it("Should keep the headers on a HEAD answer, and under compress() or etag() mounted before it", async () => {
    const head = await fetch(`${await limitedServer()}/json`, { method: "HEAD" });
    const compressed = await fetch(`${await limitedServer(compress())}/json`, { headers: { "accept-encoding": "gzip" } });
    const tagged = await fetch(`${await limitedServer(etag())}/json`);
    await Promise.all([compressed.arrayBuffer(), tagged.arrayBuffer()]);
    expect([compressed.headers.get("content-encoding"), tagged.headers.has("etag")]).toEqual(["gzip", true]);
    for (const res of [head, compressed, tagged]) expect([res.status, res.headers.get("ratelimit-policy")]).toEqual([200, '"default";q=100;w=60']);
  });
});
