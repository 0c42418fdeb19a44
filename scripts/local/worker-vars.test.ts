import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkWorkerVars, misspeltWorkerVars, secretsEnvFile, workerVarArgs, workerVars, wranglerFileVars } from "./worker-vars.ts";

const stack = { UPSTASH_REDIS_REST_URL: "http://127.0.0.1:9001", UPSTASH_REDIS_REST_TOKEN: "shim-token", ORIGIN_URL: "http://127.0.0.1:9000" };

describe("the variables npm start hands to the Worker", () => {
  it("Should pass the Worker's variables from the environment, let the stack's own values win, and ignore the rest", () => {
    const env = { RATE_LIMIT: "10/1s", ROUTES: '[{"pattern":"a.example/*"}]', MODE: "", HOME: "/root", ORIGIN_URL: "http://user.example" };
    expect(workerVarArgs(workerVars(env, { ORIGIN_URL: "http://127.0.0.1:9000" }))).toEqual([
      "--var",
      "RATE_LIMIT:10/1s",
      "--var",
      "ORIGIN_URL:http://127.0.0.1:9000",
      "--var",
      'ROUTES:[{"pattern":"a.example/*"}]',
    ]);
  });

  it("Should warn of a Worker variable misspelled in the environment, which it does not pass on, and of nothing else there", () => {
    const env = { RATE_LIMT: "1/1s", REDIS_TIMEOUT: "100", rate_limit: "5/1m", RATE_LIMIT: "10/1s", HOME: "/root", PATH: "/bin", REDIS_URL: "redis://x" };
    expect(misspeltWorkerVars(env)).toEqual([
      "RATE_LIMT is not a Worker variable, so it is not passed on (did you mean RATE_LIMIT?)",
      "REDIS_TIMEOUT is not a Worker variable, so it is not passed on (did you mean REDIS_TIMEOUT_MS?)",
      "rate_limit is not a Worker variable, so it is not passed on (did you mean RATE_LIMIT?)",
    ]);
  });

  it("Should keep the secrets off wrangler's command line and write them to its env file instead", () => {
    const vars = workerVars({ ADMIN_TOKEN: "it's-an-admin-token-of-32-chars!!" }, stack);
    const args = workerVarArgs(vars);
    expect(args.join(" ")).not.toContain("shim-token");
    expect(args.join(" ")).not.toContain("admin-token");
    expect(secretsEnvFile(vars)).toBe("ADMIN_TOKEN=`it's-an-admin-token-of-32-chars!!`\nUPSTASH_REDIS_REST_TOKEN='shim-token'\n");
  });

  it("Should escape a $ in a secret, which wrangler would otherwise expand as a variable", () => {
    expect(secretsEnvFile({ ADMIN_TOKEN: "Zq8$Kp2m${HOME}\\$x" })).toBe("ADMIN_TOKEN='Zq8\\$Kp2m\\${HOME}\\\\$x'\n");
  });

  it("Should refuse a secret with a line break, which an env file cannot hold", () => {
    expect(() => secretsEnvFile({ ADMIN_TOKEN: "a\nb" })).toThrow("ADMIN_TOKEN: a line break");
    // dotenv reads a carriage return as a line break too, even between quotes.
    expect(() => secretsEnvFile({ ADMIN_TOKEN: "a\rb" })).toThrow("ADMIN_TOKEN: a line break");
  });

  it("Should refuse, before anything starts, a variable the Worker would refuse, naming it and its value", () => {
    expect(() => checkWorkerVars(workerVars({ RATE_LIMIT: "10 per second" }, stack))).toThrow('RATE_LIMIT: invalid rule "10 per second"');
    expect(() => checkWorkerVars(workerVars({ RATE_LIMIT: "10/1s" }, stack))).not.toThrow();
  });

  it("Should check the variables with wrangler.toml's [vars] under them, as the Worker gets both", () => {
    const routes = JSON.stringify([{ pattern: "*/api/*", tiers: "free" }]);
    expect(() => checkWorkerVars(workerVars({ ROUTES: routes }, stack))).toThrow("ROUTES[0].tiers");
    expect(() => checkWorkerVars(workerVars({ ROUTES: routes }, stack), { TIERS: '{"free":"10/1m"}' })).not.toThrow();
  });

  it("Should check a variable set in the environment over wrangler.toml's value, as --var overrides [vars]", () => {
    expect(() => checkWorkerVars(workerVars({ RATE_LIMIT: "10 per second" }, stack), { RATE_LIMIT: "100/60s" })).toThrow(
      'RATE_LIMIT: invalid rule "10 per second"',
    );
  });

  it("Should read the [vars] of the wrangler file wrangler dev would use from a directory, and none without one", () => {
    const dir = mkdtempSync(join(tmpdir(), "ratewall-worker-vars-"));
    try {
      expect(wranglerFileVars(dir)).toEqual({});
      writeFileSync(join(dir, "wrangler.toml"), '[vars]\nTIERS = \'{"free":"10/1m"}\'\n');
      expect(wranglerFileVars(dir)).toEqual({ TIERS: '{"free":"10/1m"}' });
      writeFileSync(join(dir, "wrangler.jsonc"), '{ "vars": { "RATE_LIMIT": "5/1m", }, // wrangler reads this one first\n}');
      expect(wranglerFileVars(dir)).toEqual({ RATE_LIMIT: "5/1m" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
