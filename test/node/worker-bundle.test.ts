import { build } from "esbuild";
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
});
