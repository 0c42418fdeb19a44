import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { WRANGLER_ESBUILD_OPTIONS } from "../deploy/esbuild-options.ts";
import { Miniflare } from "miniflare";
import { parse } from "smol-toml";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

// What a Hono user does (README, "Install"): `npm pack` here, `npm install <tarball> hono` in an
// app outside the repository, bundle that app as wrangler does and serve it in workerd.
const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const fromRoot = (path: string) => join(repoRoot, path);
const NPM_FLAGS = ["--prefer-offline", "--no-audit", "--no-fund"];

/** The user's Worker: the README's middleware and limiter examples, and the memory limiter. */
const APP = `import { Hono } from "hono";
import { rateLimit } from "ratewall/middleware";
import { createLimiter, createMemoryLimiter, createRedisRunner, type Decision, type LimiterFactory, type RouteSettings, type Vars } from "ratewall";
import { createLimiter as limiterFromSubpath } from "ratewall/limiter";
import { createRedisRunner as runnerFromSubpath } from "ratewall/redis";

type Env = { UPSTASH_REDIS_REST_URL: string; UPSTASH_REDIS_REST_TOKEN: string; KEY_PREFIX: string };
const app = new Hono<{ Bindings: Env }>();
app.use("/api/*", rateLimit());
// As README's example reads it: \`c.var.rateLimit\` must type-check without declaring Variables.
app.get("/api/hello", (c) => c.json({ hello: c.var.rateLimit?.decision?.rules[0]?.remaining ?? null }));

const rules = [{ name: "default", algorithm: "sliding-window", limit: 1, windowMs: 60_000 }] as const;
app.get("/redis", async (c) => {
  const runner = createRedisRunner({ url: c.env.UPSTASH_REDIS_REST_URL, token: c.env.UPSTASH_REDIS_REST_TOKEN, timeoutMs: 5_000 });
  const limiter = createLimiter(rules, { runner, prefix: c.env.KEY_PREFIX });
  const decision: Decision = await limiter.limit({ client: "203.0.113.7", scope: "", now: Date.now() });
  return c.json({ allowed: decision.allowed });
});

const memory = createMemoryLimiter(rules);
app.get("/memory", async (c) => {
  const decision = await memory.limit({ client: "203.0.113.7", scope: "", now: Date.now() });
  return c.json({ allowed: decision.allowed });
});

// @ts-expect-error: the declarations are real, so a wrong option is an error, not \`any\`.
export const wrong: Parameters<typeof rateLimit>[0] = { vars: 42 };

// The types of rateLimit()'s options and of c.var.rateLimit's route are the package's to name.
export const vars: Vars = { RATE_LIMIT: "10/1m" };
export const factory: LimiterFactory = (policy, deps) => createLimiter(policy, deps);
export const routeOf = (route: RouteSettings | undefined): number => route?.cost ?? 1;

// README's subpath exports give the same functions, with their declarations.
export const subpaths: [typeof createLimiter, typeof createRedisRunner] = [limiterFromSubpath, runnerFromSubpath];
export default app;
`;

/** A strict Node-style TypeScript setup: exports, `types` and `.js` specifiers must all resolve. */
const TSCONFIG = {
  compilerOptions: {
    target: "es2022",
    module: "nodenext",
    moduleResolution: "nodenext",
    lib: ["es2023", "dom"],
    types: [],
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  },
  include: ["src"],
};

/** Bundles the app as wrangler does and serves it in workerd against the tests' shim. */
async function serveApp(): Promise<Miniflare> {
  const script = join(app, "dist/index.js");
  await build({ ...WRANGLER_ESBUILD_OPTIONS, entryPoints: [join(app, "src/index.ts")], outfile: script, absWorkingDir: app });
  const { compatibility_date } = parse(await readFile(fromRoot("wrangler.toml"), "utf8")) as { compatibility_date: string };
  return new Miniflare({
    scriptPath: script,
    modulesRoot: join(app, "dist"),
    modules: true,
    compatibilityDate: compatibility_date,
    bindings: {
      UPSTASH_REDIS_REST_URL: inject("upstashUrl"),
      UPSTASH_REDIS_REST_TOKEN: inject("upstashToken"),
      RATE_LIMIT: "1/1m",
      // Exact over any 60 s: a fixed window could reset between the two requests.
      RATE_LIMIT_ALGORITHM: "sliding-log",
      KEY_PREFIX: `pack-${randomBytes(4).toString("hex")}`,
    },
  });
}

interface PackedFile {
  path: string;
}

let dir: string;
let app: string;
let packed: PackedFile[];
let mf: Miniflare;
let shim: ChildProcess | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ratewall-pack-"));
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", dir], { cwd: repoRoot, maxBuffer: 16 << 20 });
  const [tarball] = JSON.parse(stdout) as Array<{ filename: string; files: PackedFile[] }>;
  packed = tarball!.files;
  app = join(dir, "app");
  await mkdir(join(app, "src"), { recursive: true });
  await writeFile(join(app, "package.json"), JSON.stringify({ name: "ratewall-user-app", private: true, type: "module" }));
  await writeFile(join(app, "tsconfig.json"), JSON.stringify(TSCONFIG));
  // The resolution many older projects still use (TypeScript's "node10"), which reads no `exports`.
  const node10 = { module: "esnext", moduleResolution: "node" };
  await writeFile(join(app, "tsconfig.node10.json"), JSON.stringify({ ...TSCONFIG, compilerOptions: { ...TSCONFIG.compilerOptions, ...node10 } }));
  await writeFile(join(app, "src/index.ts"), APP);
  // The hono this repository tests with, so that the install can come from npm's cache.
  const { devDependencies } = JSON.parse(await readFile(fromRoot("package.json"), "utf8")) as { devDependencies: Record<string, string> };
  await run("npm", ["install", join(dir, tarball!.filename), `hono@${devDependencies.hono}`, ...NPM_FLAGS], { cwd: app });
  mf = await serveApp();
}, 240_000);

afterAll(async () => {
  // Each step runs whatever the others did: a workerd that failed to start rejects dispose().
  await mf?.dispose().catch(() => undefined);
  if (shim?.pid !== undefined && shim.exitCode === null) {
    const exited = new Promise((resolve) => shim!.once("exit", resolve));
    process.kill(shim.pid, "SIGTERM");
    await exited;
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the npm package, installed into a Hono app outside the repository", () => {
  it("Should ship compiled JavaScript, declarations, the two command lines and the docs README links to, and no tests or fixtures", () => {
    const paths = packed.map((file) => file.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "package.json",
        "README.md",
        "docs/architecture.md",
        "docs/operations.md",
        "docs/shim.md",
        "dist/src/lib.js",
        "dist/src/lib.d.ts",
        "dist/src/middleware/rate-limit/index.js",
        "dist/src/middleware/rate-limit/index.d.ts",
        "dist/scripts/upstash-shim/cli.js",
        "dist/scripts/admin/cli.js",
      ]),
    );
    expect(paths.filter((path) => /\.test\.|fixtures|fake|check-wrangler|bench\/.*\.(js|json)$|\.ts$/.test(path) && !path.endsWith(".d.ts"))).toEqual([]);
  });

  it("Should ship every file that a shipped page links to, so that no link in the installed package is broken", async () => {
    const paths = new Set(packed.map((file) => file.path));
    const broken: string[] = [];
    for (const page of [...paths].filter((path) => path.endsWith(".md"))) {
      const text = await readFile(fromRoot(page), "utf8");
      // Markdown links and images, [text](target) and ![alt](target), that stay in the package.
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:|^#/.test(target!)) continue;
        const linked = posix.normalize(posix.join(posix.dirname(page), target!.replace(/#.*$/, "")));
        if (!paths.has(linked)) broken.push(`${page} -> ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("Should limit requests in workerd through ratewall/middleware: one allowed, the next refused with 429", async () => {
    const headers = { "cf-connecting-ip": "203.0.113.9" };
    const first = await mf.dispatchFetch("http://app.example/api/hello", { headers });
    expect([first.status, await first.json()]).toEqual([200, { hello: 0 }]);
    expect(first.headers.get("ratelimit-policy")).toBe('"default";q=1;w=60');
    const second = await mf.dispatchFetch("http://app.example/api/hello", { headers });
    await second.text();
    expect(second.status).toBe(429);
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(0);
  }, 60_000);

  it("Should decide with createLimiter over createRedisRunner, and with createMemoryLimiter, from the package root", async () => {
    for (const path of ["/redis", "/memory"]) {
      const answers = [await mf.dispatchFetch(`http://app.example${path}`), await mf.dispatchFetch(`http://app.example${path}`)];
      expect(await Promise.all(answers.map((answer) => answer.json())), path).toEqual([{ allowed: true }, { allowed: false }]);
    }
  }, 30_000);

  it.each(["tsconfig.json", "tsconfig.node10.json"])(
    "Should type-check the app against the installed declarations, with Node's strict module resolution and with the older one (%s)",
    async (tsconfig) => {
      const tsc = fromRoot("node_modules/typescript/bin/tsc");
      const result = await run(process.execPath, [tsc, "-p", join(app, tsconfig)]).catch((error: { stdout: string }) => error);
      expect(result.stdout).toBe("");
    },
    60_000,
  );

  it("Should start the installed ratewall-shim bin, which answers PING", async () => {
    const token = randomBytes(16).toString("hex");
    shim = spawn(join(app, "node_modules/.bin/ratewall-shim"), ["--port", "0", "--redis-url", inject("redisUrl"), "--token", token], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      shim!.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const listening = /listening on (http:\/\/\S+)/.exec(out);
        if (listening) resolve(listening[1]!);
      });
      shim!.once("exit", (code) => reject(new Error(`ratewall-shim exited with ${code} before listening:\n${out}`)));
    });
    const answer = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: '["PING"]' });
    expect(await answer.json()).toEqual({ result: "PONG" });
  }, 30_000);

  it("Should install ratewall-admin, which prints its usage", async () => {
    const { stdout } = await run(join(app, "node_modules/.bin/ratewall-admin"), ["--help"]);
    expect(stdout).toMatch(/^Usage: ratewall-admin <command>/);
  }, 30_000);

  it("Should print the installed package's version with --version, from both command lines", async () => {
    const { version } = JSON.parse(await readFile(fromRoot("package.json"), "utf8")) as { version: string };
    for (const bin of ["ratewall-shim", "ratewall-admin"]) {
      const { stdout } = await run(join(app, "node_modules/.bin", bin), ["--version"]);
      expect(stdout, bin).toBe(`${version}\n`);
    }
  }, 30_000);
  it("Should load every export with require(), as a CommonJS project (npm init's default) does", async () => {
    const exported = Object.keys((JSON.parse(await readFile(fromRoot("package.json"), "utf8")) as { exports: Record<string, unknown> }).exports);
    const names = exported.filter((path) => path !== "./package.json").map((path) => path.replace(/^\./, "ratewall"));
    const script = `for (const name of ${JSON.stringify(names)}) { try { require(name); console.log(name, "loaded"); } catch (error) { console.log(name, error.code); } }`;
    const { stdout } = await run(process.execPath, ["-e", script], { cwd: app });
    // Node loads ES modules with require() from 20.19 on; before, it says so (ERR_REQUIRE_ESM)
    // rather than that the package exports no such path.
    const expected = (process.features as { require_module?: boolean }).require_module ? "loaded" : "ERR_REQUIRE_ESM";
    expect(stdout.trim().split("\n")).toEqual(names.map((name) => `${name} ${expected}`));
  }, 30_000);
});
