import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { checkConfigText } from "./check-config.ts";

const dir = join(import.meta.dirname, "../test/fixtures/config");
const fixtures = readdirSync(dir).filter((name) => name.endsWith(".toml"));

const LOCAL_URL_WARNING =
  "wrangler.toml: warning: [vars] UPSTASH_REDIS_REST_URL points at 127.0.0.1, which only this machine reaches: set your database's URL before `wrangler deploy`";

describe("check-config", () => {
  it("Should warn, and still pass, a Redis URL on this machine or a private network, which a deployed Worker cannot reach", () => {
    for (const host of [
      "127.0.0.1:8079",
      "0.0.0.0:8079",
      "localhost",
      "localhost.:8079",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.200.7:8079",
      "192.168.0.9:80",
      "[::1]:8079",
      "[::ffff:127.0.0.1]:8079",
    ]) {
      const result = checkConfigText(`[vars]\nUPSTASH_REDIS_REST_URL = "http://${host}"`, "wrangler.toml");
      expect(result.code).toBe(0);
      expect(result.output).toContain("wrangler.toml: warning: [vars] UPSTASH_REDIS_REST_URL points at");
    }
    expect(checkConfigText('[vars]\nUPSTASH_REDIS_REST_URL = "https://eu1-example.upstash.io"', "wrangler.toml").output).toBe("wrangler.toml: ok ([vars])");
  });

  it("Should warn of a Redis URL that sends the token unencrypted, and of a Custom Domain with no ORIGIN_URL, whose requests would come back to the Worker", () => {
    expect(checkConfigText('[vars]\nUPSTASH_REDIS_REST_URL = "http://eu1-example.upstash.io"', "wrangler.toml").output).toBe(
      "wrangler.toml: ok ([vars])\nwrangler.toml: warning: [vars] UPSTASH_REDIS_REST_URL is http://, so the token crosses the network unencrypted: use https://",
    );
    const domain = (env: string, vars: string) =>
      `routes = [{ pattern = "api.example.com", custom_domain = true }]\n[vars]\nUPSTASH_REDIS_REST_URL = "https://x.upstash.io"\n${vars}\n${env}`;
    expect(checkConfigText(domain("", ""), "wrangler.toml").output).toBe(
      'wrangler.toml: ok ([vars])\nwrangler.toml: warning: [vars] has no ORIGIN_URL, and the route "api.example.com" is a Custom Domain, where the Worker is the origin: each request it forwards would come back to it; set ORIGIN_URL (unless it is a secret)',
    );
    expect(checkConfigText(domain("", 'ORIGIN_URL = "https://origin.example.com"'), "wrangler.toml").output).toBe("wrangler.toml: ok ([vars])");
    expect(checkConfigText(domain("", 'ORIGIN_URL = ""'), "wrangler.toml").output).toContain("warning: [vars] has no ORIGIN_URL");
    // wrangler also takes a single `route`.
    const single = '[vars]\nUPSTASH_REDIS_REST_URL = "https://x.upstash.io"';
    expect(checkConfigText(`route = { pattern = "api.example.com", custom_domain = true }\n${single}`, "wrangler.toml").output).toContain(
      'warning: [vars] has no ORIGIN_URL, and the route "api.example.com" is a Custom Domain',
    );
    // An environment deploys its own routes, not the top level's.
    const staging =
      '[env.staging]\nroutes = [{ pattern = "staging.example.com", custom_domain = true }]\n[env.staging.vars]\nUPSTASH_REDIS_REST_URL = "https://x.upstash.io"';
    expect(checkConfigText(domain(staging, 'ORIGIN_URL = "https://origin.example.com"'), "wrangler.toml").output).toContain(
      'warning: [env.staging.vars] has no ORIGIN_URL, and the route "staging.example.com" is a Custom Domain',
    );
  });

  it.each(fixtures)("Should report exactly the message %s expects", (name) => {
    const text = readFileSync(join(dir, name), "utf8");
    const expected = /^# expect: (.*)$/m.exec(text)?.[1];
    expect(expected, `${name} needs a "# expect:" first line`).toBeDefined();
    const result = checkConfigText(text, name);
    expect(result.output).toBe(`${name}: ${expected}`);
    expect(result.code).toBe(expected!.startsWith("ok") ? 0 : 1);
  });

  it("Should read a wrangler.jsonc, comments and trailing commas included, and report its errors as for TOML", () => {
    const jsonc = (vars: string) => `{\n  // the Worker\n  "name": "ratewall", /* main below */\n  "vars": { ${vars}, },\n}`;
    expect(
      checkConfigText(
        jsonc('"UPSTASH_REDIS_REST_URL": "https://eu1-example.upstash.io", "ROUTES": "[{\\"pattern\\":\\"*/a,}\\",\\"rules\\":\\"5/1m\\"}]"'),
        "wrangler.jsonc",
      ),
    ).toEqual({
      code: 0,
      output: "wrangler.jsonc: ok ([vars])",
    });
    // An escaped quote does not end a string: the "/*" of a route's pattern is no comment.
    const routes = '"ROUTES": "[{\\"pattern\\":\\"*/api/*\\",\\"rules\\":\\"5/1m\\"}]"';
    expect(checkConfigText(jsonc(`"UPSTASH_REDIS_REST_URL": "https://eu1-example.upstash.io", ${routes}`), "wrangler.jsonc")).toEqual({
      code: 0,
      output: "wrangler.jsonc: ok ([vars])",
    });
    expect(checkConfigText(jsonc('"UPSTASH_REDIS_REST_URL": "https://eu1-example.upstash.io", "RATE_LIMT": "5/1s"'), "wrangler.jsonc").output).toMatch(
      /^wrangler\.jsonc: \[vars\]: unknown variable "RATE_LIMT"/,
    );
  });

  it("Should check only the environment named by --env, as wrangler deploys it, and say which when it is missing", () => {
    const text = readFileSync(join(dir, "vars-in-environments-only.toml"), "utf8").replace('RATE_LIMIT = "1000/60s"', 'RATE_LIMIT = "1000 per minute"');
    expect(checkConfigText(text, "wrangler.toml", { env: "production" })).toEqual({ code: 0, output: "wrangler.toml: ok ([env.production.vars])" });
    expect(checkConfigText(text, "wrangler.toml", { env: "staging" }).output).toMatch(/^wrangler\.toml: \[env\.staging\.vars\]: RATE_LIMIT: /);
    expect(checkConfigText(text, "wrangler.toml", { env: "prod" }).output).toBe(
      "wrangler.toml: [env.prod]: no such environment in the file (it has staging, production)",
    );
  });

  it("Should read a wrangler.jsonc that starts with a byte order mark, as wrangler does", () => {
    expect(checkConfigText('\uFEFF{ "vars": { "UPSTASH_REDIS_REST_URL": "https://eu1-example.upstash.io" } }', "wrangler.jsonc").code).toBe(0);
  });

  it("Should check the file wrangler deploys with (wrangler.jsonc before wrangler.toml), and read a path from where npm was run", () => {
    const project = mkdtempSync(join(tmpdir(), "check-config-"));
    try {
      writeFileSync(join(project, "wrangler.toml"), '[vars]\nUPSTASH_REDIS_REST_URL = "https://eu1-example.upstash.io"\n');
      writeFileSync(
        join(project, "wrangler.jsonc"),
        '{ "vars": { "UPSTASH_REDIS_REST_URL": "https://eu1-example.upstash.io", "RATE_LIMIT": "100 per minute" } }',
      );
      const [tsx, script] = [resolve("node_modules/.bin/tsx"), resolve("scripts/check-config.ts")];
      const run = (args: string[], options: { cwd: string; env?: Record<string, string> }) => {
        try {
          return {
            code: 0,
            out: execFileSync(tsx, [script, ...args], { encoding: "utf8", stdio: "pipe", ...options, env: { ...process.env, ...options.env } }),
          };
        } catch (error) {
          return { code: (error as { status: number }).status, out: (error as { stderr: string }).stderr };
        }
      };
      const byDefault = run([], { cwd: project });
      expect(byDefault.code).toBe(1);
      expect(byDefault.out).toMatch(/^wrangler\.jsonc: RATE_LIMIT: /);
      // wrangler looks for each name in the directories above too: a wrangler.json above wins.
      const nested = join(project, "app");
      mkdirSync(nested);
      writeFileSync(join(nested, "wrangler.toml"), '[vars]\nUPSTASH_REDIS_REST_URL = "https://eu1-example.upstash.io"\n');
      writeFileSync(join(project, "wrangler.json"), '{ "vars": { "UPSTASH_REDIS_REST_URL": "https://eu1-example.upstash.io", "RATE_LIMT": "5/1s" } }');
      expect(run([], { cwd: nested }).out).toMatch(/^\.\.\/wrangler\.json: \[vars\]: unknown variable "RATE_LIMT"/);
      // With CLOUDFLARE_ENV, as wrangler reads it for --env.
      writeFileSync(join(nested, "wrangler.toml"), '[env.production.vars]\nUPSTASH_REDIS_REST_URL = "https://eu1-example.upstash.io"\n');
      for (const above of ["wrangler.json", "wrangler.jsonc"]) rmSync(join(project, above));
      expect(run([], { cwd: nested, env: { CLOUDFLARE_ENV: "production" } })).toEqual({ code: 0, out: "wrangler.toml: ok ([env.production.vars])\n" });
      // As `npm run check-config wrangler.toml` typed in `project`: npm runs it in the package's directory.
      expect(run(["wrangler.toml"], { cwd: process.cwd(), env: { INIT_CWD: project } })).toEqual({ code: 0, out: "wrangler.toml: ok ([vars])\n" });
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  }, 90_000);

  it("Should exit 1 with the message when run on a bad or unreadable file, among others or alone, and 0 on the project's own wrangler.toml", () => {
    const run = (files: string[] = [], env: Record<string, string> = {}) => {
      try {
        const argv = ["tsx", "scripts/check-config.ts", ...files];
        return { code: 0, out: execFileSync("npx", argv, { encoding: "utf8", stdio: "pipe", env: { ...process.env, ...env } }) };
      } catch (error) {
        const failed = error as { status: number; stderr: string };
        return { code: failed.status, out: failed.stderr };
      }
    };
    expect(run()).toEqual({ code: 0, out: `wrangler.toml: ok ([vars])\n${LOCAL_URL_WARNING}\n` });
    // As wrangler.toml's [build] hook under `wrangler dev`, where the local URL is meant; a deploy still warns.
    expect(run([], { WRANGLER_COMMAND: "dev" })).toEqual({ code: 0, out: "wrangler.toml: ok ([vars])\n" });
    expect(run([], { WRANGLER_COMMAND: "deploy" }).out).toContain(LOCAL_URL_WARNING);
    const bad = join("test/fixtures/config", "unknown-algorithm.toml");
    expect(run([bad])).toEqual({ code: 1, out: expect.stringContaining('RATE_LIMIT_ALGORITHM: unknown algorithm "leaky"') });
    // Every file named is checked, and any bad one fails the run, wherever it comes.
    for (const files of [
      ["wrangler.toml", bad],
      [bad, "wrangler.toml"],
    ]) {
      expect(run(files), files.join(" ")).toEqual({
        code: 1,
        out: expect.stringContaining('unknown-algorithm.toml: RATE_LIMIT_ALGORITHM: unknown algorithm "leaky"'),
      });
    }
    expect(run(["does-not-exist.toml"])).toEqual({ code: 1, out: "does-not-exist.toml: cannot read (ENOENT)\n" });
    expect(execFileSync("npx", ["tsx", "scripts/check-config.ts", "--help"], { encoding: "utf8" })).toMatch(/^usage: npm run check-config/);
  }, 90_000);

  it("Should still check the file when the script is reached through a symlink, not exit 0 having run nothing", () => {
    const linked = mkdtempSync(join(tmpdir(), "ratewall-check-link-"));
    try {
      symlinkSync(resolve("scripts"), join(linked, "scripts"));
      const script = join(linked, "scripts/check-config.ts");
      const bad = resolve("test/fixtures/config/unknown-algorithm.toml");
      const failed = (() => {
        try {
          execFileSync(process.execPath, ["--import", "tsx", script, bad], { encoding: "utf8", stdio: "pipe" });
          return { code: 0, out: "" };
        } catch (error) {
          return { code: (error as { status: number }).status, out: (error as { stderr: string }).stderr };
        }
      })();
      expect(failed.code).toBe(1);
      expect(failed.out).toContain('RATE_LIMIT_ALGORITHM: unknown algorithm "leaky"');
    } finally {
      rmSync(linked, { recursive: true, force: true });
    }
  }, 90_000);
});
