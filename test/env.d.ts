declare module "vitest" {
  /** Values that test/global-setup.ts hands to every test file. */
  export interface ProvidedContext {
    /** `redis://…` of the Redis the tests own. */
    redisUrl: string;
    /** `http://127.0.0.1:<port>` of the Upstash REST shim in front of that Redis (scripts/upstash-shim). */
    upstashUrl: string;
    /** The shim's bearer token (random per run). */
    upstashToken: string;
    /** `http://127.0.0.1:<port>` of the echo origin (scripts/local/origin.ts). */
    originUrl: string;
  }
}
export {};
