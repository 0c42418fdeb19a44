/**
 * @module The esbuild settings `wrangler deploy` bundles a Worker with (wrangler 4.86:
 * wrangler-dist/cli.js, `bundleWorker` and `COMMON_ESBUILD_OPTIONS`), for the places that build a
 * Worker without starting wrangler: the bench's fast builds, the package test's app, the bundle's
 * contents test and the CPU profiler. `npm test`'s deploy check and the full bench run wrangler
 * itself (./build-worker.ts, scripts/bench/lib/bundle.ts).
 */
import type { BuildOptions } from "esbuild";

/** Everything but the entry point and the output. */
export const WRANGLER_ESBUILD_OPTIONS = {
  bundle: true,
  format: "esm",
  target: "es2024",
  platform: "browser",
  conditions: ["workerd", "worker", "browser"],
  // As ratewall's wrangler.toml sets them (wrangler's defaults are the opposite).
  keepNames: false,
  minify: true,
  external: ["__STATIC_CONTENT_MANIFEST", "cloudflare:*", "node:*"],
  define: { "navigator.userAgent": '"Cloudflare-Workers"', "process.env.NODE_ENV": '"production"' },
  logLevel: "silent",
} satisfies BuildOptions;
