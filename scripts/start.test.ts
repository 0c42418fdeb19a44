import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { inlineReply } from "./local/redis-inline.ts";
import { freePort, portIsFree } from "./local/redis-server.ts";
import { WORKER_VARIABLES } from "./local/worker-vars.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * Stands in for `wrangler dev`: starts a child of its own (as wrangler starts workerd), records its
 * arguments, the env file it was given and both pids, says "Ready on" as wrangler does, and runs
 * until it is stopped.
 */
const FAKE_WRANGLER = `#!/usr/bin/env node
const { spawn } = require("node:child_process");
const { readFileSync, writeFileSync } = require("node:fs");
const args = process.argv.slice(2);
const envFile = readFileSync(args[args.indexOf("--env-file") + 1], "utf8");
const workerd = spawn(process.execPath, ["-e", "setInterval(() => {}, 60000)"], { stdio: "ignore" });
writeFileSync(process.env.FAKE_WRANGLER_RECORD, JSON.stringify({ args, envFile, pid: process.pid, childPid: workerd.pid }));
console.log("Ready on http://127.0.0.1:" + args[args.indexOf("--port") + 1]);
setInterval(() => {}, 60_000);
`;

let project: string;

// A copy of the project's scripts whose node_modules/.bin/wrangler is FAKE_WRANGLER (the rest
// linked), so that `npm start` runs whole without starting workerd.
beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), "ratewall-start-test-"));
  cpSync(join(root, "scripts"), join(project, "scripts"), { recursive: true });
  for (const entry of ["src", "package.json", "tsconfig.json", "wrangler.toml"]) symlinkSync(join(root, entry), join(project, entry));
  mkdirSync(join(project, "node_modules/.bin"), { recursive: true });
  for (const entry of readdirSync(join(root, "node_modules")).filter((name) => name !== ".bin")) {
    symlinkSync(join(root, "node_modules", entry), join(project, "node_modules", entry));
  }
  writeFileSync(join(project, "node_modules/.bin/wrangler"), FAKE_WRANGLER, { mode: 0o755 });
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

interface Started {
  child: ChildProcess;
  /** Its TMPDIR: what it leaves there, it left behind. */
  tmp: string;
  /** Where the stand-in for wrangler records what it was given. */
  record: string;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

const startedHere: Started[] = [];
// Whatever a test left running (it failed half-way), stopped as npm start is stopped: SIGTERM.
afterEach(async () => {
  for (const started of startedHere.splice(0)) {
    await stop(started);
    rmSync(started.tmp, { recursive: true, force: true });
  }
});

/**
 * `npm start`'s script (package.json: `node --import tsx scripts/start.ts`) in the project copy,
 * with `env` on top of this environment without the Worker's variables (Vitest sets MODE). With
 * `npm`, through `npm start` itself, in a process group of its own, as a terminal runs it.
 */
function start(env: Record<string, string>, args: string[] = [], { npm = false } = {}): Started {
  const tmp = mkdtempSync(join(tmpdir(), "ratewall-start-tmp-"));
  const record = join(project, `wrangler-${startedHere.length}-${Date.now()}.json`);
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !WORKER_VARIABLES.includes(name) && name !== "RATEWALL_REDIS_URL"));
  const [command, commandArgs] = npm
    ? ["npm", ["start", "--silent", ...(args.length ? ["--", ...args] : [])]]
    : [process.execPath, ["--import", "tsx", "scripts/start.ts", ...args]];
  const child = spawn(command, commandArgs, {
    cwd: project,
    env: { ...clean, TMPDIR: tmp, FAKE_WRANGLER_RECORD: record, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: npm,
  });
  let [stdout, stderr] = ["", ""];
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const started = { child, tmp, record, stdout: () => stdout, stderr: () => stderr, exited };
  startedHere.push(started);
  return started;
}

/** Resolves once `started` printed the last line it prints when ready (how to reach the admin API); rejects, with what it printed, if it exits first. */
function untilReady(started: Started): Promise<void> {
  const last = "npm run admin -- status";
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!started.stdout().includes(last)) return;
      started.child.stdout!.off("data", check);
      resolve();
    };
    started.child.stdout!.on("data", check);
    void started.exited.then((code) => reject(new Error(`npm start exited (${code}) before it was ready:\n${started.stdout()}${started.stderr()}`)));
    check();
  });
}

/** The exit code of `started`, or "ready" if it started the stack instead of exiting. */
function outcome(started: Started): Promise<number | null | "ready"> {
  return Promise.race([
    started.exited,
    untilReady(started).then(
      () => "ready" as const,
      () => started.exited,
    ),
  ]);
}

/** Sends `signal` to `started` if it still runs; its exit code. */
async function stop(started: Started, signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
  if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill(signal);
  return started.exited;
}

/** What the stand-in for wrangler was given. */
function wranglerRecord(started: Started): { args: string[]; envFile: string; pid: number; childPid: number } {
  return JSON.parse(readFileSync(started.record, "utf8"));
}

/** The port of the redis-server `started` says it uses (its password masked). */
function redisPort(started: Started): number {
  return Number(/Redis redis:\/\/:\*\*\*@127\.0\.0\.1:(\d+),/.exec(started.stdout())?.[1]);
}

/** What `started` left in its TMPDIR, tsx's own cache aside. */
function leftBehind(started: Started): string[] {
  return readdirSync(started.tmp)
    .filter((name) => !name.startsWith("tsx-"))
    .sort();
}

/** Whether the process `pid` still runs. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("npm start", () => {
  it("Should start its own password-protected redis-server on a free port, never 6379, and hand wrangler dev its secrets in a file, never on its command line", async () => {
    const port = await freePort();
    const started = start({ PORT: String(port), RATE_LIMIT: "5/1m" });
    await untilReady(started);
    const redis = redisPort(started);
    expect(redis).not.toBe(6379);
    expect(await inlineReply(redis, "PING")).toBe("-NOAUTH Authentication required.");
    const { args, envFile } = wranglerRecord(started);
    expect(args.slice(0, 5)).toEqual(["dev", "--ip", "127.0.0.1", "--port", String(port)]);
    expect(args).toContain("RATE_LIMIT:5/1m");
    const adminToken = /^ADMIN_TOKEN='([0-9a-f]{64})'$/m.exec(envFile)?.[1];
    const shimToken = /^UPSTASH_REDIS_REST_TOKEN='([0-9a-f]{32})'$/m.exec(envFile)?.[1];
    expect([adminToken, shimToken]).toEqual([expect.any(String), expect.any(String)]);
    expect(args.join(" ")).not.toContain(adminToken);
    expect(args.join(" ")).not.toContain(shimToken);
    // The token it generated is the one it prints for `npm run admin`.
    expect(started.stdout()).toContain(`RATEWALL_ADMIN_TOKEN=${adminToken} npm run admin`);
    // The Worker's Redis is the shim, in front of that redis-server.
    const shimUrl = args.find((arg) => arg.startsWith("UPSTASH_REDIS_REST_URL:"))!.slice("UPSTASH_REDIS_REST_URL:".length);
    const ping = await fetch(shimUrl, { method: "POST", headers: { authorization: `Bearer ${shimToken}` }, body: '["PING"]' });
    expect(await ping.json()).toEqual({ result: "PONG" });
  }, 60_000);

  it.each(["SIGTERM", "SIGHUP"] as const)(
    "Should stop every process it started on %s, remove its files and exit 0",
    async (signal) => {
      const started = start({ PORT: String(await freePort()) });
      await untilReady(started);
      const redis = redisPort(started);
      const { pid, childPid } = wranglerRecord(started);
      expect(leftBehind(started)).toEqual([expect.stringMatching(/^ratewall-redis-/), expect.stringMatching(/^ratewall-start-/)]);
      expect(await stop(started, signal)).toBe(0);
      expect(leftBehind(started)).toEqual([]);
      expect({ wrangler: running(pid), workerd: running(childPid) }).toEqual({ wrangler: false, workerd: false });
      expect(await portIsFree(redis)).toBe(true);
    },
    60_000,
  );

  it("Should stop every process and remove its files on Ctrl-C, which signals npm and the script together, even while the script's event loop is busy", async () => {
    // A wrapper process that kills a child slow to acknowledge a signal (tsx's command line does,
    // after 30 ms) would cut the cleanup short and leave the secrets file: turns of 200 ms make the
    // script that slow, where a terminal's output or a loaded machine can.
    const busy = join(project, "busy-event-loop.mjs");
    writeFileSync(busy, 'if (process.argv[1]?.endsWith("start.ts")) setInterval(() => { const t = Date.now(); while (Date.now() - t < 200); }, 0).unref();\n');
    const started = start({ PORT: String(await freePort()), NODE_OPTIONS: `--import ${busy}` }, [], { npm: true });
    await untilReady(started);
    const { pid, childPid } = wranglerRecord(started);
    expect(leftBehind(started)).toEqual([expect.stringMatching(/^ratewall-redis-/), expect.stringMatching(/^ratewall-start-/)]);
    process.kill(-started.child.pid!, "SIGINT");
    await started.exited;
    expect(leftBehind(started)).toEqual([]);
    expect({ wrangler: running(pid), workerd: running(childPid) }).toEqual({ wrangler: false, workerd: false });
  }, 90_000);

  it("Should stop everything and exit 1 when its redis-server exits, rather than let the Worker forward every request unlimited", async () => {
    const started = start({ PORT: String(await freePort()) });
    await untilReady(started);
    const { pid } = wranglerRecord(started);
    const redisPid = Number(execFileSync("pgrep", ["-P", String(started.child.pid), "-x", "redis-server"], { encoding: "utf8" }));
    process.kill(redisPid, "SIGKILL");
    expect(await started.exited).toBe(1);
    expect(started.stderr()).toContain("ratewall: redis-server exited (code null); stopping the stack");
    expect(leftBehind(started)).toEqual([]);
    expect(running(pid)).toBe(false);
  }, 60_000);

  it("Should stop everything and exit 1 when the reader of its output goes away (npm start | head)", async () => {
    const started = start({ PORT: String(await freePort()) });
    started.child.stdout!.destroy();
    expect(await started.exited).toBe(1);
    expect(leftBehind(started)).toEqual([]);
  }, 60_000);

  it("Should keep a token the user chose off the screen", async () => {
    const token = "a-token-the-user-chose-of-40-characters!!";
    const started = start({ PORT: String(await freePort()), ADMIN_TOKEN: token });
    await untilReady(started);
    expect(started.stdout()).not.toContain(token);
    expect(started.stdout()).toContain('RATEWALL_ADMIN_TOKEN="$ADMIN_TOKEN" npm run admin');
  }, 60_000);

  it.each([
    [{ PORT: "80a" }, [], 'ratewall: PORT: invalid port "80a" (expected an integer from 1 to 65535)'],
    [{ PORT: "65536" }, [], 'ratewall: PORT: invalid port "65536" (expected an integer from 1 to 65535)'],
    [{}, ["--port=9000"], 'ratewall: npm start takes no arguments, got "--port=9000": set PORT, RATE_LIMIT, … in the environment'],
    [{ ADMIN_TOKEN: "short" }, [], "ratewall: ADMIN_TOKEN: must be at least 32 characters (got 5)"],
    [{ RATE_LIMIT: "10 per second" }, [], 'ratewall: RATE_LIMIT: invalid rule "10 per second"'],
  ] as const)(
    "Should refuse %j %j before starting anything: exit 1, naming what is wrong",
    async (env, args, message) => {
      const started = start({ PORT: String(await freePort()), ...env }, [...args]);
      expect(await outcome(started)).toBe(1);
      expect(started.stderr()).toContain(message);
      expect(started.stderr()).not.toContain("    at ");
      expect(leftBehind(started)).toEqual([]);
      expect(existsSync(started.record)).toBe(false);
    },
    60_000,
  );

  it("Should refuse a PORT in use, naming it, before starting anything", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    try {
      const port = (taken.address() as { port: number }).port;
      const started = start({ PORT: String(port) });
      expect(await outcome(started)).toBe(1);
      expect(started.stderr()).toContain(`ratewall: PORT: 127.0.0.1:${port} is in use (set PORT to a free port)`);
      expect(leftBehind(started)).toEqual([]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 60_000);
});
