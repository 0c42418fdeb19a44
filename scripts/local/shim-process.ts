/**
 * @module The shim as users run it: `scripts/upstash-shim/cli.ts` in its own process, so that a
 * client measuring it does not share its event loop, a crash is an exit rather than a failed test
 * runner, and its memory can be read. For the bench, the soak and the hardening tests.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { stopChild } from "./redis-server.ts";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The shim running in a child process. */
export interface ShimProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Runs `node …nodeFlags --import tsx scripts/upstash-shim/cli.ts --port 0 …args` and resolves once
 * it says where it listens. `node` itself, not the `tsx` wrapper, so that `pid` is the shim's own
 * process (and flags such as `--cpu-prof`, which NODE_OPTIONS refuses, reach it).
 *
 * @example
 * const shim = await spawnShim(["--redis-url", redis.url, "--token", token]);
 * try { … } finally { await shim.stop(); }
 */
export async function spawnShim(
  args: string[],
  env: Record<string, string> = {},
  { timeoutMs = 20_000, nodeFlags = [] }: { timeoutMs?: number; nodeFlags?: string[] } = {},
): Promise<ShimProcess> {
  const child = spawn(process.execPath, [...nodeFlags, "--import", "tsx", "scripts/upstash-shim/cli.ts", "--port", "0", ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the shim did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
      const poll = setInterval(() => {
        const found = /listening on (http:\/\/\S+)/.exec(output)?.[1];
        if (found) done(() => resolve(found));
      }, 20);
      const done = (then: () => void) => {
        clearTimeout(timer);
        clearInterval(poll);
        then();
      };
      child.once("exit", (code) => done(() => reject(new Error(`the shim exited with code ${code}:\n${output}`))));
    });
    return { url, pid: child.pid!, child, output: () => output, stop: () => stopChild(child) };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}
