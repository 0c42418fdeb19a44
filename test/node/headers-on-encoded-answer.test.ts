import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WRANGLER_ESBUILD_OPTIONS } from "../../scripts/deploy/esbuild-options.ts";

// A handler may pass an origin's compressed answer through as is (`encodeResponseBody: "manual"`);
// workerd then sends the body unchanged. Only an answer served over HTTP shows whether adding the
// headers kept that, so the app runs in Miniflare, bundled as wrangler bundles it.
const PAYLOAD = "hello ".repeat(200);
const APP = `import { Hono } from "hono";
import { addHeaders } from "./src/headers/add-headers.ts";
const app = new Hono();
app.use(async (c, next) => {
  await next();
  addHeaders(c, [["RateLimit", '"default";r=1;t=10']]);
});
app.get("/", (c) => fetch(c.env.ORIGIN, { encodeResponseBody: "manual" }));
export default app;`;

let origin: Server;
let mf: Miniflare;

beforeAll(async () => {
  origin = createServer((_req, res) => res.writeHead(200, { "content-encoding": "gzip", "content-type": "text/plain" }).end(gzipSync(PAYLOAD)));
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
  const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
  const bundle = await build({ ...WRANGLER_ESBUILD_OPTIONS, stdin: { contents: APP, resolveDir: repoRoot, loader: "ts" }, write: false });
  mf = new Miniflare({
    modules: true,
    script: bundle.outputFiles[0]!.text,
    compatibilityDate: "2026-04-20",
    bindings: { ORIGIN: `http://127.0.0.1:${(origin.address() as AddressInfo).port}/` },
  });
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
  await new Promise((resolve) => origin.close(resolve));
});

describe("the rate-limit headers on an origin's compressed answer passed through in workerd", () => {
  it("Should send the body compressed once, as the origin sent it, with the headers", async () => {
    const res = await mf.dispatchFetch("http://app.example/", { headers: { "accept-encoding": "gzip" } });
    expect([res.headers.get("ratelimit"), await res.text()]).toEqual(['"default";r=1;t=10', PAYLOAD]);
  });
});
