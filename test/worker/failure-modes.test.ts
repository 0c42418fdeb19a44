import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { testApp, uniqueIpv4 } from "./helpers.ts";

const TIMEOUT_MS = 100;
/** Loose: the answer must come soon after the timeout, not be a benchmark. */
const MARGIN_MS = 1_500;

/** The real shim, reached only after `delayMs` (an abort ends the wait, as a real socket would). */
function slowFetch(delayMs: number): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, delayMs);
      init?.signal?.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(init.signal?.reason ?? new Error("aborted"));
      });
    });
    return fetch(input, init);
  }) as typeof fetch;
}
const answer500 = (async () => new Response('{"error":"ERR internal"}', { status: 500 })) as unknown as typeof fetch;

const failures = [
  { name: "the shim is stopped (nothing listens)", vars: { UPSTASH_REDIS_REST_URL: "http://127.0.0.1:1" }, deps: {}, kind: "network" },
  { name: "the shim is slower than REDIS_TIMEOUT_MS", vars: {}, deps: { redisFetch: slowFetch(TIMEOUT_MS * 20) }, kind: "timeout" },
  { name: "the shim answers 500", vars: {}, deps: { redisFetch: answer500 }, kind: "http" },
];

describe.each(failures)("When $name", ({ vars, deps, kind }) => {
  it("Should forward to the origin with FAILURE_MODE=open, in time, and log the cause once without the token", async () => {
    const t = testApp({ ...vars, REDIS_TIMEOUT_MS: String(TIMEOUT_MS), FAILURE_MODE: "open" }, deps);
    const started = Date.now();
    const res = await t.get("/", uniqueIpv4());
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-demo-origin")).toBe("1");
    expect(res.headers.get("ratelimit")).toBeNull();
    expect(t.logs).toEqual([expect.objectContaining({ level: "error", event: "redis-failure", failureMode: "open", kind })]);
    expect(JSON.stringify(t.logs)).not.toContain(env.UPSTASH_REDIS_REST_TOKEN);
  });

  it("Should answer 503 with FAILURE_MODE=closed, in time, and log the cause once", async () => {
    const t = testApp({ ...vars, REDIS_TIMEOUT_MS: String(TIMEOUT_MS), FAILURE_MODE: "closed" }, deps);
    const started = Date.now();
    const res = await t.get("/", uniqueIpv4(), { accept: "application/problem+json" });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ type: "about:blank", title: "Service Unavailable", status: 503 });
    expect(t.logs).toEqual([expect.objectContaining({ event: "redis-failure", failureMode: "closed", kind })]);
  });
});
