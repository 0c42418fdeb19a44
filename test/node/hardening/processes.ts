/**
 * @module Helpers for the hardening tests: the shim as its own process (so that a crash is an exit,
 * not a failed test runner, and its memory can be read), raw HTTP, and RSS sampling from /proc.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { stopChild } from "../../../scripts/local/redis-server.ts";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

/** The shim started through its CLI (`scripts/upstash-shim/cli.ts`), in a child process. */
export interface ShimProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Runs `node --import tsx scripts/upstash-shim/cli.ts --port 0 …` and resolves once it says where
 * it listens. `node` itself, not the `tsx` wrapper, so that `pid` is the shim's own process.
 *
 * @example
 * const shim = await spawnShimCli(["--redis-url", redis.url, "--token", "t"]);
 */
export async function spawnShimCli(args: string[], env: Record<string, string> = {}): Promise<ShimProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/upstash-shim/cli.ts", "--port", "0", ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the shim did not start within 20 s:\n${output}`)), 20_000);
    const poll = setInterval(() => {
      const found = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (found) done(() => resolve(found));
    }, 20);
    const done = (then: () => void) => (clearTimeout(timer), clearInterval(poll), then());
    child.once("exit", (code) => done(() => reject(new Error(`the shim exited with code ${code}:\n${output}`))));
  });
  return { url, pid: child.pid!, child, output: () => output, stop: () => stopChild(child) };
}

/** The resident set size of a process, in KiB (Linux /proc). */
export function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

/** An HTTP answer as raw as the tests need it. */
export interface RawAnswer {
  status: number;
  contentType: string;
  body: string;
}

/**
 * Sends one request with fetch (no retries, no redirects) and reads the whole answer.
 *
 * @example
 * const { status, body } = await send(shim.url, "/", '["PING"]', { authorization: "Bearer t" });
 */
export async function send(base: string, path: string, body: string | Uint8Array | undefined, headers: Record<string, string> = {}, method = "POST"): Promise<RawAnswer> {
  const res = await fetch(`${base}${path}`, { method, body, headers, redirect: "manual" });
  return { status: res.status, contentType: res.headers.get("content-type") ?? "", body: await res.text() };
}

/**
 * Writes raw bytes on a fresh TCP connection and resolves with what came back before the server
 * closed it (or `waitMs` passed). For request lines that fetch refuses to send.
 */
export function rawHttp(url: string, bytes: string | Buffer, waitMs = 2000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let received = "";
    const finish = () => (clearTimeout(timer), socket.destroy(), resolve(received));
    const timer = setTimeout(finish, waitMs);
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      if (/^HTTP\/1\.1 \d+[^]*\r\n\r\n/.test(received) && /transfer-encoding: chunked/i.test(received) && received.endsWith("0\r\n\r\n")) finish();
      if (/\r\n\r\n/.test(received) && /content-length: (\d+)/i.test(received)) {
        const length = Number(/content-length: (\d+)/i.exec(received)![1]);
        if (received.length - received.indexOf("\r\n\r\n") - 4 >= length) finish();
      }
    });
    socket.once("error", finish).once("close", finish);
    socket.write(bytes);
  });
}
