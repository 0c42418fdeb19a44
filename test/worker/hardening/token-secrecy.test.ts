import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../../src/app.ts";
import { readSettings } from "../../../src/settings.ts";
import { baseVars, testApp, uniqueIpv4 } from "../helpers.ts";

// The Upstash token must never show: not in a log line (the console is captured, the apps use the
// default logger), an error message, an answer (body or header), or a header the origin receives
// (the echo origin sends back everything it saw).
const TOKEN = env.UPSTASH_REDIS_REST_TOKEN!;
let printed: string[] = [];

beforeEach(() => {
  printed = [];
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(" ")));
  }
});
afterEach(() => vi.restoreAllMocks());

async function seen(res: Response): Promise<string> {
  return `${res.status} ${JSON.stringify([...res.headers])} ${await res.text()}`;
}

/** An app on the default console logger, so that what it prints is what a deployment would log. */
const app = (vars: Record<string, unknown> = {}) => testApp(vars, { log: undefined });

describe("the Upstash token", () => {
  it("Should never reach the origin, the answer or the logs, whatever the client sends", async () => {
    const t = app({ RATE_LIMIT: "2/60s", MODE: "enforce" });
    const ip = uniqueIpv4();
    const answers = [];
    const headers = { "upstash-encoding": "base64", "upstash-sync-token": "x", "x-ratewall-debug": "1", connection: "keep-alive, x-secret", "x-secret": "1" };
    for (let i = 0; i < 3; i++) answers.push(await seen(await t.get(`/echo?i=${i}`, ip, headers)));
    expect(answers[0]).toMatch(/^200 /);
    expect(answers[2]).toMatch(/^429 /);
    expect(answers.join("\n")).not.toContain(TOKEN);
    expect(answers[0]).not.toMatch(/upstash-|x-ratewall-|x-secret/);
    expect(printed.join("\n")).not.toContain(TOKEN);
  });

  it("Should stay out of the logs and answers when Redis fails in every way, open or closed", async () => {
    const failures = [
      { UPSTASH_REDIS_REST_TOKEN: `${TOKEN}-wrong` },
      { UPSTASH_REDIS_REST_URL: "http://127.0.0.1:1" },
      { UPSTASH_REDIS_REST_URL: `http://127.0.0.1:1/?_token=${TOKEN}` },
      // An endpoint that echoes the request, Authorization header included, into its answer.
      { UPSTASH_REDIS_REST_URL: env.ORIGIN_URL },
      { UPSTASH_REDIS_REST_URL: `${env.ORIGIN_URL}/${TOKEN}` },
    ];
    const answers = [];
    for (const failure of failures) {
      for (const FAILURE_MODE of ["open", "closed"]) answers.push(await seen(await app({ ...failure, FAILURE_MODE }).get("/", uniqueIpv4())));
    }
    expect(answers.filter((answer) => answer.startsWith("200 ")).length).toBe(failures.length);
    expect(answers.filter((answer) => answer.startsWith("503 ")).length).toBe(failures.length);
    expect(printed.filter((line) => line.includes("redis-failure")).length).toBe(failures.length * 2);
    expect(answers.join("\n")).not.toContain(TOKEN);
    expect(printed.join("\n")).not.toContain(TOKEN);
  });

  it("Should stay out of the logs when an origin's failure quotes it", async () => {
    const leaky = (async () => {
      throw new TypeError(`connect failed: ${TOKEN}`);
    }) as typeof fetch;
    const res = await testApp({}, { log: undefined, originFetch: leaky }).get("/", uniqueIpv4());
    expect(res.status).toBe(502);
    expect(printed.join("\n")).toContain("origin-failure");
    expect(printed.join("\n")).not.toContain(TOKEN);
  });

  it("Should not be quoted back when it was pasted into the wrong variable", async () => {
    const swapped = { ...baseVars, UPSTASH_REDIS_REST_URL: TOKEN, UPSTASH_REDIS_REST_TOKEN: env.UPSTASH_REDIS_REST_URL };
    expect(() => readSettings(swapped)).toThrow(/^UPSTASH_REDIS_REST_URL: /);
    expect(() => readSettings(swapped)).not.toThrow(TOKEN);
    for (const name of ["RATE_LIMIT", "ORIGIN_URL", "ROUTES", "RATE_LIMIT_ALGORITHM", "FAILURE_MODE", "MODE"]) {
      expect(() => readSettings({ ...baseVars, [name]: TOKEN })).toThrow(new RegExp(`^${name}: `));
      expect(() => readSettings({ ...baseVars, [name]: TOKEN })).not.toThrow(TOKEN);
    }
    const long = `AX${"Zm9vYmFyYmF6".repeat(8)}=`;
    for (const name of ["ROUTES", "RATE_LIMIT"]) {
      expect(() => readSettings({ ...baseVars, UPSTASH_REDIS_REST_TOKEN: long, [name]: long })).not.toThrow(long.slice(0, 16));
    }
    // Settings read from env on the first request: the error is logged, the client sees a 500 without it.
    const res = await createApp().request("https://example.com/", { headers: { "cf-connecting-ip": uniqueIpv4() } }, { ...env, ...swapped });
    expect(await seen(res)).toMatch(/^500 .*ratewall is misconfigured/);
    expect(printed.join("\n")).toMatch(/config-error/);
    expect(printed.join("\n")).not.toContain(TOKEN);
  });
});

describe("the admin token", () => {
  it("Should stay out of the logs when an origin's failure or an event callback's error quotes it, as the Upstash token does", async () => {
    const ADMIN_TOKEN = "adm1n-t0ken-that-must-never-be-logged-0123456789";
    const leaky = (async () => {
      throw new TypeError(`connect failed: Bearer ${ADMIN_TOKEN}`);
    }) as typeof fetch;
    const onEvent = () => {
      throw new Error(`sink refused Bearer ${ADMIN_TOKEN}`);
    };
    const res = await testApp({ ADMIN_TOKEN }, { log: undefined, originFetch: leaky, onEvent }).get("/", uniqueIpv4());
    expect(res.status).toBe(502);
    expect(printed.join("\n")).toContain("origin-failure");
    expect(printed.join("\n")).toContain("analytics-failure");
    expect(printed.join("\n")).not.toContain(ADMIN_TOKEN);
  });
});
