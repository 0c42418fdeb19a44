import { mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { buildWorker } from "./build-worker.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** A copy of the project whose wrangler.toml is `edit` of the real one (everything else linked). */
async function projectWith(edit: (toml: string) => string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "ratewall-deploy-check-"));
  for (const entry of ["package.json", "node_modules", "src", "scripts", "tsconfig.json"]) {
    await symlink(join(root, entry), join(dir, entry));
  }
  await writeFile(join(dir, "wrangler.toml"), edit(await readFile(join(root, "wrangler.toml"), "utf8")));
  return dir;
}

describe("wrangler deploy", () => {
  it("Should refuse a wrangler.toml with a misspelled variable, naming it, instead of deploying the default limit", async () => {
    const toml = (await readFile(join(root, "wrangler.toml"), "utf8")).replace(/^RATE_LIMIT = /m, "RATE_LIMT = ");
    expect(toml).toContain("RATE_LIMT = ");
    const dir = await projectWith(() => toml);
    try {
      await expect(buildWorker(join(dir, "out"), dir)).rejects.toThrow('unknown variable "RATE_LIMT"');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("Should refuse an invalid value, naming the variable and the value", async () => {
    const dir = await projectWith((toml) => toml.replace(/^RATE_LIMIT = .*$/m, 'RATE_LIMIT = "100 per minute"'));
    try {
      await expect(buildWorker(join(dir, "out"), dir)).rejects.toThrow(/RATE_LIMIT: .*"100 per minute"/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
