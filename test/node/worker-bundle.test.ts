import { readFile } from "node:fs/promises";
import { build } from "esbuild";
import { parse } from "smol-toml";
import { WRANGLER_ESBUILD_OPTIONS } from "../../scripts/deploy/esbuild-options.ts";
import { describe, expect, it } from "vitest";

/** The source files esbuild puts in the Worker's bundle, with the settings wrangler deploys with. */
async function bundledInputs(): Promise<string[]> {
  const result = await build({ ...WRANGLER_ESBUILD_OPTIONS, entryPoints: ["src/index.ts"], write: false, metafile: true });
  const [output] = Object.values(result.metafile.outputs);
  return Object.entries(output!.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path);
}

describe("the Worker's bundle", () => {
  it("Should leave out the algorithms' TypeScript models and the in-memory limiter, which only tests and the bench use", async () => {
    const inputs = await bundledInputs();
    expect(inputs).toContain("src/limiter/create-limiter.ts");
    expect(inputs.filter((path) => /src\/limiter\/(.+\/model\.ts|memory\/|registry\.ts)/.test(path))).toEqual([]);
  });

  it("Should be built by the fast builds exactly as wrangler.toml has wrangler build it, minified and with names left as minified", async () => {
    const project = parse(await readFile("wrangler.toml", "utf8")) as { minify?: boolean; keep_names?: boolean };
    expect({ minify: WRANGLER_ESBUILD_OPTIONS.minify, keepNames: WRANGLER_ESBUILD_OPTIONS.keepNames }).toEqual({
      minify: project.minify ?? false,
      keepNames: project.keep_names ?? true,
    });
  });

  it("Should not set function names as functions are created: no esbuild `__name` helper runs per request", async () => {
    const result = await build({ ...WRANGLER_ESBUILD_OPTIONS, entryPoints: ["src/index.ts"], write: false });
    // The helper, `(target, value) => defineProperty(target, "name", { value, configurable: true })`, minified.
    const helpers = result.outputFiles[0]!.text.split('"name",{value:').length - 1;
    expect(helpers, "the bundle defines esbuild's __name helper: is keep_names back on?").toBe(0);
  });
});
