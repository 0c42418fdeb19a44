import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { readBudget } from "./budget.ts";
import { buildWorker, kib } from "./build-worker.ts";

describe("the deployed Worker's size", () => {
  it("Should stay within the gzipped budget README.md states, built as wrangler deploy builds it", async () => {
    const budget = readBudget(await readFile(new URL("../../README.md", import.meta.url), "utf8"));
    const outdir = await mkdtemp(join(tmpdir(), "ratewall-deploy-"));
    try {
      const build = await buildWorker(outdir);
      console.log(`deploy bundle: ${kib(build.bytes)} raw, ${kib(build.gzipBytes)} gzipped (budget ${kib(budget)})`);
      expect(build.files.map((file) => file.path)).toContain("index.js");
      // The figure held to the budget is what wrangler uploads, gzipped: every module it wrote, read back here.
      const modules = await Promise.all(build.files.map((file) => readFile(join(outdir, file.path))));
      expect(build.gzipBytes).toBe(gzipSync(Buffer.concat(modules)).length);
      expect(build.gzipBytes, `the Worker is ${kib(build.gzipBytes)} gzipped, over README.md's budget of ${kib(budget)}`).toBeLessThanOrEqual(budget);
    } finally {
      await rm(outdir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("readBudget", () => {
  it("Should read the budget in bytes from the README's sentence", () => {
    expect(readBudget("5. **Bundle budget:** the Worker stays under 40 KiB gzipped; `npm test` …")).toBe(40 * 1024);
  });

  it("Should name README.md and the sentence it looks for when the sentence is missing", () => {
    expect(() => readBudget("## Deploy\nno budget here")).toThrow('README.md: no "**Bundle budget:** … <n> KiB gzipped" sentence');
  });
});
