import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";

/** `npm run soak` with `env`: its exit code and stderr, or "started" (then stopped) if it began a soak instead. */
function soak(env: Record<string, string>): Promise<{ code: number | null | "started"; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/soak.ts"], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => {
    child.stdout.on("data", (chunk: Buffer) => {
      // Its first line once under way: stop it there, as Ctrl-C would.
      if (chunk.toString().includes("soak: bundling")) {
        child.once("exit", () => resolve({ code: "started", stderr }));
        child.kill("SIGTERM");
      }
    });
    child.once("exit", (code) => resolve({ code, stderr }));
  });
}

describe("npm run soak", () => {
  it.each([
    ["SOAK_SECONDS", "5", 'soak: SOAK_SECONDS: invalid value "5" (expected a whole number from 20 to 3600)'],
    ["SOAK_SECONDS", "1m", 'soak: SOAK_SECONDS: invalid value "1m" (expected a whole number from 20 to 3600)'],
    ["SOAK_CONNECTIONS", "0", 'soak: SOAK_CONNECTIONS: invalid value "0" (expected a whole number from 1 to 1000)'],
  ])(
    "Should refuse %s=%s before starting anything, exit 2, naming the variable and the value",
    async (name, value, message) => {
      expect(await soak({ [name]: value })).toEqual({ code: 2, stderr: `${message}\n` });
    },
    30_000,
  );
});
