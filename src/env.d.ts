// What `wrangler types` cannot see in wrangler.toml: the secrets (set with `wrangler secret put`)
// and the optional variables that are unset by default. Merged into the generated Cloudflare.Env.
declare namespace Cloudflare {
  interface Env {
    /** Required: a secret, so `wrangler types` cannot see it; readSettings checks it is set. */
    UPSTASH_REDIS_REST_TOKEN: string;
    ORIGIN_URL?: string;
    ROUTES?: string;
    /** A secret: set (`wrangler secret put ADMIN_TOKEN`), it turns the admin API on. */
    ADMIN_TOKEN?: string;
    /** The Analytics Engine dataset decision events go to, when bound (README, "Operating ratewall"). */
    RATEWALL_ANALYTICS?: AnalyticsEngineDataset;
  }
}

// Types `exports` from "cloudflare:workers" (used by the end-to-end tests) with this Worker's
// own exports, as `wrangler types` does when it can see the main module.
declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./index");
  }
}
