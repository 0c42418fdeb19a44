/**
 * @module `npm start`: the whole stack on one machine. Starts `redis-server` (unless RATEWALL_REDIS_URL
 * names a Redis to use instead: not REDIS_URL, which the shell may hold for something else),
 * the Upstash REST shim on a free port with a random token, a demo origin (unless ORIGIN_URL) and
 * `wrangler dev` (on PORT, default 8787), wires them together, and on Ctrl-C, SIGTERM or SIGHUP (a
 * terminal's hangup, sent to the whole process group: npm does not pass on one sent to it alone),
 * or when its redis-server or wrangler exits, stops every child it started. Every Worker variable set in this environment (RATE_LIMIT, ROUTES, MODE, …) is
 * passed on to the Worker. The admin API is always on: with ADMIN_TOKEN (at least 32 characters),
 * else with a random token printed once the Worker is ready, for `npm run admin`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { maskCredentials } from "./upstash-shim/cli-options.ts";
import { startShim } from "./upstash-shim/index.ts";
import { localAdminToken } from "./local/admin-token.ts";
import { startOrigin } from "./local/origin.ts";
import { freePort, portIsFree, RedisServerMissingError, startRedisServer } from "./local/redis-server.ts";
import { stackUrls } from "./local/stack-urls.ts";
import { checkWorkerVars, misspeltWorkerVars, secretsEnvFile, workerVarArgs, workerVars, wranglerFileVars } from "./local/worker-vars.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WRANGLER = fileURLToPath(new URL("../node_modules/.bin/wrangler", import.meta.url));

function workerPort(): number {
  // Empty counts as unset, as for every variable (README, "Configuration").
  const text = process.env.PORT || "8787";
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 65535) {
    throw new Error(`PORT: invalid port "${text}" (expected an integer from 1 to 65535)`);
  }
  return Number(text);
}

async function main() {
  const stops: Array<() => Promise<void>> = [];
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const stopOne of stops.reverse()) await stopOne().catch((error) => console.error(error));
    process.exit(code);
  };
  // SIGHUP: the terminal closed (an ssh session dropped); left running, the stack would forward
  // every request unlimited once the shim is gone.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void stop(0));
  // The reader of our output went away (`npm start | head`, a pager quit): an unhandled EPIPE would
  // end this process at once, leaving redis-server, wrangler and the secrets file behind.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => void stop(1));

  try {
    // First: a port, a token or a variable the Worker would refuse must stop us before anything
    // starts (else it would say it is ready, then answer every request 500).
    // npm start passes on what follows `--`; wrangler's flags would be ignored, so say so.
    if (process.argv.length > 2)
      throw new Error(`npm start takes no arguments, got ${JSON.stringify(process.argv.slice(2).join(" "))}: set PORT, RATE_LIMIT, … in the environment`);
    const port = workerPort();
    // Taken, wrangler would say so only after everything else had started, and name its own --port.
    if (!(await portIsFree(port))) throw new Error(`PORT: 127.0.0.1:${port} is in use (set PORT to a free port)`);
    const named = stackUrls(process.env);
    const admin = localAdminToken(process.env);
    const stackToken = randomBytes(16).toString("hex");
    // What the stack will set, with stand-ins for the URLs of what is not started yet.
    const planned = {
      UPSTASH_REDIS_REST_URL: "http://127.0.0.1:1",
      UPSTASH_REDIS_REST_TOKEN: stackToken,
      ORIGIN_URL: named.originUrl ?? "http://127.0.0.1:1",
      ADMIN_TOKEN: admin.token,
    };
    checkWorkerVars(workerVars(process.env, planned), wranglerFileVars(ROOT));
    for (const warning of misspeltWorkerVars(process.env)) console.error(`ratewall: warning: ${warning}`);
    // With a password: the shim's token would mean little if any local user could reach Redis itself.
    const redis = named.redisUrl ? undefined : await startRedisServer({ password: randomBytes(16).toString("hex") });
    if (redis) {
      stops.push(redis.stop);
      // Gone, it would leave the Worker forwarding every request unlimited: stop, as for wrangler.
      void redis.exited.then((code) => {
        if (stopping) return;
        console.error(`ratewall: redis-server exited (code ${code}); stopping the stack`);
        void stop(1);
      });
    }
    const redisUrl = named.redisUrl ?? redis!.url;
    const shim = await startShim({ redisUrl, token: stackToken, port: 0 });
    stops.push(shim.close);
    const origin = named.originUrl ? undefined : await startOrigin();
    if (origin) stops.push(origin.close);
    const originUrl = named.originUrl ?? origin!.url;

    // ADMIN_TOKEN as an override: a generated one is not in the environment, and a user's one is
    // passed even where VARIABLES does not list it yet.
    const vars = workerVars(process.env, { ...planned, UPSTASH_REDIS_REST_URL: shim.url, ORIGIN_URL: originUrl });
    // The secrets go in a file only this user reads, removed when the stack stops.
    const secretsDir = mkdtempSync(join(tmpdir(), "ratewall-start-"));
    stops.push(async () => rmSync(secretsDir, { recursive: true, force: true }));
    const envFile = join(secretsDir, "secrets.env");
    writeFileSync(envFile, secretsEnvFile(vars), { mode: 0o600 });
    const args = [
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      String(await freePort()),
      "--show-interactive-dev-session=false",
      "--env-file",
      envFile,
      ...workerVarArgs(vars),
    ];
    // detached: wrangler gets its own process group, so that stopping it also stops its workerd children.
    const wrangler = spawn(WRANGLER, args, {
      cwd: ROOT,
      detached: true,
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
    stops.push(() => stopGroup(wrangler));
    wrangler.once("exit", (code) => {
      if (!stopping) console.error(`ratewall: wrangler dev exited (code ${code}); stopping the stack`);
      void stop(code ?? 1);
    });

    console.log(`ratewall: Redis ${maskCredentials(redisUrl)}, Upstash REST shim ${shim.url}, origin ${originUrl}; starting wrangler dev…`);
    // Readiness comes from wrangler's own "Ready on" line: a probe request would use up quota.
    let announced = false;
    let tail = "";
    wrangler.stdout!.on("data", (chunk: Buffer) => {
      process.stdout.write(chunk);
      tail = (tail + chunk.toString()).slice(-200);
      if (announced || !tail.includes("Ready on")) return;
      announced = true;
      console.log(`\nratewall is ready: http://127.0.0.1:${port}  (Ctrl-C stops everything)`);
      console.log(`try: curl -i http://127.0.0.1:${port}/hello`);
      // A token the user chose is theirs to keep off the screen; a generated one is useless unshown.
      const shown = admin.generated ? admin.token : '"$ADMIN_TOKEN"';
      console.log(`admin API: RATEWALL_ADMIN_TOKEN=${shown} npm run admin -- status 127.0.0.1 --url http://127.0.0.1:${port}\n`);
    });
  } catch (error) {
    console.error(error instanceof RedisServerMissingError ? error.message : `ratewall: ${error instanceof Error ? error.message : String(error)}`);
    await stop(1);
  }
}

/** SIGTERM to the child's whole process group, SIGKILL after 5 s if anything is left. */
function stopGroup(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return Promise.resolve();
  const signal = (name: NodeJS.Signals | 0) => {
    try {
      process.kill(-pid, name);
      return true;
    } catch {
      return false; // The group is already gone.
    }
  };
  if (!signal("SIGTERM")) return Promise.resolve();
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (!signal(0)) done();
    }, 100);
    const timer = setTimeout(() => {
      signal("SIGKILL");
      done();
    }, 5000);
    const done = () => {
      clearInterval(poll);
      clearTimeout(timer);
      resolve();
    };
  });
}

void main();
