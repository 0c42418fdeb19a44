/**
 * @module Starts a throwaway `redis-server` for the tests and the local stack: a free port on
 * 127.0.0.1, a temporary directory, no persistence. It never touches a Redis it did not start
 * (a machine may have a shared one on 6379; README.md, "Quick start").
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A running `redis-server` started by {@link startRedisServer}. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The child's pid, so that callers can report it (or kill it as their process exits). */
  pid: number;
  /** Its temporary directory, which `stop` removes. */
  dir: string;
  /** Stops the server and removes its temporary directory. Safe to call twice. */
  stop(): Promise<void>;
  /** Settles with the exit code (null for a signal) once the server exits, stopped or not. */
  exited: Promise<number | null>;
}

/** Thrown when `redis-server` is not on PATH; the message says how to install it. */
export class RedisServerMissingError extends Error {
  override readonly name = "RedisServerMissingError";
  constructor() {
    super(
      "redis-server was not found on PATH. Install it: `sudo apt-get install redis-server` (Debian/Ubuntu) " +
        "or `brew install redis` (macOS), or name a Redis you own in RATEWALL_REDIS_URL (npm start) or RATEWALL_TEST_REDIS_URL (npm test).",
    );
  }
}

/**
 * Starts `redis-server` on a free loopback port and resolves once it accepts connections.
 *
 * @example
 * const redis = await startRedisServer();
 * try { use(redis.url); } finally { await redis.stop(); }
 *
 * `port` asks for a given port (a test that restarts Redis where a client expects it), or is a
 * function that picks one (asked again on each retry); by default a free one is picked. `args` are
 * passed on to `redis-server` after the defaults (e.g. `--cluster-enabled yes`). With `password`,
 * a client must AUTH (the URL carries it): other users of the machine can reach a loopback port.
 * It is set in a config file in the server's own directory (0700), never on the command line,
 * which `ps` shows everyone.
 */
export async function startRedisServer(options: { port?: number | (() => Promise<number>); args?: string[]; password?: string } = {}): Promise<RedisServer> {
  const pick = typeof options.port === "function" ? options.port : () => Promise.resolve((options.port as number | undefined) ?? freePort());
  // Another process can take the port between our probe and redis's bind; try a few ports.
  for (let attempt = 1; ; attempt++) {
    const port = await pick();
    const dir = await mkdtemp(join(tmpdir(), "ratewall-redis-"));
    // A config file, if any, must be redis-server's first argument.
    const config = options.password === undefined ? [] : [join(dir, "redis.conf")];
    if (options.password !== undefined) await writeFile(config[0]!, `requirepass ${options.password}\n`, { mode: 0o600 });
    const child = spawn(
      "redis-server",
      [
        ...config,
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        "--save",
        "",
        "--appendonly",
        "no",
        "--loglevel",
        "warning",
        ...(options.args ?? []),
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    try {
      await waitUntilListening(child, port);
    } catch (error) {
      child.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
      if (error instanceof RedisServerMissingError || attempt >= 3) throw error;
      continue;
    }
    let stopped: Promise<void> | undefined;
    return {
      url: options.password === undefined ? `redis://127.0.0.1:${port}` : `redis://:${encodeURIComponent(options.password)}@127.0.0.1:${port}`,
      port,
      pid: child.pid!,
      dir,
      stop: () => (stopped ??= stopChild(child).then(() => rm(dir, { recursive: true, force: true }))),
      exited,
    };
  }
}

/** Asks the kernel for a free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return listenOnce(0).then((port) => port!);
}

/** True when `port` on 127.0.0.1 can be listened on right now. */
export async function portIsFree(port: number): Promise<boolean> {
  return (await listenOnce(port)) !== undefined;
}

/** Listens on `port` (0: any) and closes again; the port, or `undefined` when it was taken. */
function listenOnce(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) => (error.code === "EADDRINUSE" ? resolve(undefined) : reject(error)));
    server.listen(port, "127.0.0.1", () => {
      const { port: bound } = server.address() as { port: number };
      server.close(() => resolve(bound));
    });
  });
}

function waitUntilListening(child: ChildProcess, port: number, timeoutMs = 5000): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => (output += chunk.toString());
    const onExit = (code: number | null) => settle(new Error(`redis-server exited with code ${code}: ${output.trim()}`));
    const settle = (error?: Error) => {
      clearInterval(poll);
      clearTimeout(timer);
      child.off("exit", onExit);
      child.stdout?.off("data", onData);
      child.stderr?.off("data", onData);
      if (error) reject(error);
      else resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("error", (error: NodeJS.ErrnoException) => settle(error.code === "ENOENT" ? new RedisServerMissingError() : error));
    child.once("exit", onExit);
    const timer = setTimeout(() => settle(new Error(`redis-server did not listen on ${port} within ${timeoutMs} ms`)), timeoutMs);
    const poll = setInterval(() => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        settle();
      });
      socket.once("error", () => socket.destroy());
    }, 20);
  });
}

/** Sends SIGTERM, then SIGKILL if the child has not exited after `graceMs`. */
export function stopChild(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
