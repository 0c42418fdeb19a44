/**
 * @module Which environment variables `npm start` hands to the Worker. The list of names is the
 * Worker's own (`VARIABLES` in src/settings.ts, README.md's configuration table), so a variable
 * the Worker learns to read is passed on without touching this file.
 */
import { VARIABLES } from "../../src/settings.ts";

/** Every variable the Worker reads. */
export const WORKER_VARIABLES: readonly string[] = VARIABLES;

/**
 * The `wrangler dev --var NAME:value` arguments: every Worker variable set (non-empty) in `env`,
 * then `overrides`, which win (the local stack's own shim URL, token and origin).
 *
 * @example
 * workerVarArgs({ RATE_LIMIT: "10/1s", HOME: "/root" }, { ORIGIN_URL: "http://127.0.0.1:9000" });
 * // → ["--var", "RATE_LIMIT:10/1s", "--var", "ORIGIN_URL:http://127.0.0.1:9000"]
 */
export function workerVarArgs(env: Record<string, string | undefined>, overrides: Record<string, string>): string[] {
  const vars = new Map<string, string>();
  for (const name of WORKER_VARIABLES) {
    const value = env[name];
    if (value !== undefined && value !== "") vars.set(name, value);
  }
  for (const [name, value] of Object.entries(overrides)) vars.set(name, value);
  // wrangler splits each pair at the first ":", so values may contain colons (URLs, JSON).
  return [...vars].flatMap(([name, value]) => ["--var", `${name}:${value}`]);
}
