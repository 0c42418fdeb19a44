import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defaultClientConditions } from "vite";
import { defineConfig } from "vitest/config";

// Two projects (test/README.md): Node for the shim, the scripts and
// the Lua against real Redis; workerd for the Worker, end to end. One globalSetup starts Redis,
// the shim and the origin once, for both.
export default defineConfig({
  test: {
    globalSetup: ["test/global-setup.ts"],
    projects: [
      {
        test: {
          name: "node",
          environment: "node",
          include: ["scripts/**/*.test.ts", "test/node/**/*.test.ts"],
        },
      },
      {
        plugins: [
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                ORIGIN_URL: inject("originUrl"),
                UPSTASH_REDIS_REST_URL: inject("upstashUrl"),
                UPSTASH_REDIS_REST_TOKEN: inject("upstashToken"),
              },
              // workerd's own Analytics Engine binding, as `[[analytics_engine_datasets]]` gives it.
              analyticsEngineDatasets: { RATEWALL_ANALYTICS: { dataset: "ratewall_test" } },
            },
          })),
        ],
        // `ratewall/middleware` (a test imports it as a user would) resolves to the source
        // through package.json's exports; dist/ exists only after `npm pack` (README, "Install").
        // Vite's defaults for a webworker SSR target, plus ours.
        ssr: { resolve: { conditions: ["ratewall-source", ...defaultClientConditions] } },
        test: {
          name: "worker",
          include: ["src/**/*.test.ts", "test/worker/**/*.test.ts"],
        },
      },
    ],
  },
});
