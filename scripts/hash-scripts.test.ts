import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { limiterScripts } from "../src/limiter/scripts.ts";

describe("npm run hash-scripts", () => {
  it("Should print each limiter script's SHA1 beside its name and ok when the pinned SHA1 matches, and exit 0", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "scripts/hash-scripts.ts"], { encoding: "utf8" });
    expect(run.status).toBe(0);
    expect(run.stdout.trimEnd().split("\n")).toEqual(Object.entries(limiterScripts).map(([name, script]) => `${script.sha1}  ${name}  ok`));
  }, 30_000);
});
