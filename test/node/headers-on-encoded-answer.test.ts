import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WRANGLER_ESBUILD_OPTIONS } from "../../scripts/deploy/esbuild-options.ts";
import { type EchoedRequest, type Origin, startOrigin } from "../../scripts/local/origin.ts";

// A handler may pass an origin's compressed answer through as is (`encodeResponseBody: "manual"`);
// workerd then sends the body unchanged. Only an answer served over HTTP shows whether adding the
// headers kept that, so the app runs in Miniflare, bundled as wrangler bundles it. The echo origin
// answers gzipped when asked (x-origin-answer).
const APP = `import { Hono } from "hono";
import { addHeaders } from "./src/headers/add-headers.ts";
const app = new Hono();
app.use(async (c, next) => {
  await next();
  addHeaders(c, [["RateLimit", '"default";r=1;t=10']]);
});
app.get("/", (c) => fetch(c.env.ORIGIN, { headers: { "x-origin-answer": '{"encoding":"gzip"}' }, encodeResponseBody: "manual" }));
export default app;`;

let origin: Origin;
let mf: Miniflare;

beforeAll(async () => {
  origin = await startOrigin();
  const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
  const bundle = await build({ ...WRANGLER_ESBUILD_OPTIONS, stdin: { contents: APP, resolveDir: repoRoot, loader: "ts" }, write: false });
  mf = new Miniflare({
    modules: true,
    script: bundle.outputFiles[0]!.text,
    compatibilityDate: "2026-04-20",
    bindings: { ORIGIN: `${origin.url}/` },
  });
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
  await origin?.close();
});

describe("the rate-limit headers on an origin's compressed answer passed through in workerd", () => {
  it("Should send the body compressed once, as the origin sent it, with the headers", async () => {
    const res = await mf.dispatchFetch("http://app.example/", { headers: { "accept-encoding": "gzip" } });
    // Compressed twice, the body decoded once would be gzip, not the echo's JSON.
    const echoed = JSON.parse(await res.text()) as EchoedRequest;
    expect([res.headers.get("ratelimit"), echoed.method, echoed.url]).toEqual(['"default";r=1;t=10', "GET", "/"]);
  });
});
