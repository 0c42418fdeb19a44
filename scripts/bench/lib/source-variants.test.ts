import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fromRoot } from "./paths.ts";
import { applyPatch, parseVariants } from "./source-variants.ts";

const committed = readdirSync(fromRoot("scripts/bench")).filter((name) => /^variants\..+\.json$/.test(name));

describe("variants of ratewall's source", () => {
  it("Should replace the one occurrence of the patch's text", () => {
    const patch = { file: "proxy/forward.ts", replace: "dropHopByHop(headers);", with: "" };
    expect(applyPatch("answerHeaders() { dropHopByHop(headers); }", patch, "no-hop")).toBe("answerHeaders() {  }");
  });

  it("Should refuse a patch whose text is missing, naming the variant and the file", () => {
    const patch = { file: "redis/client.ts", replace: "AbortSignal.timeout(timeoutMs)", with: "undefined" };
    expect(() => applyPatch("const signal = undefined;", patch, "no-signal")).toThrow(
      'variant no-signal: src/redis/client.ts does not contain "AbortSignal.timeout(timeoutMs)"',
    );
  });

  it("Should refuse a patch whose text occurs twice, since it could change the wrong place", () => {
    const patch = { file: "app.ts", replace: "next()", with: "undefined" };
    expect(() => applyPatch("next(); next();", patch, "twice")).toThrow('variant twice: src/app.ts contains "next()" more than once');
  });

  it("Should accept a well-formed variants file", () => {
    const spec = { "no-cf": [{ file: "middleware/rate-limit/rate-limit.ts", replace: "a", with: "b" }], control: [] };
    expect(parseVariants(spec, "v.json")).toBe(spec);
  });

  it("Should reject variant names the tool uses, paths that leave src/, and empty replacements, naming the file", () => {
    expect(() => parseVariants({ lean: [] }, "v.json")).toThrow('v.json: variant name "lean" must be');
    expect(() => parseVariants({ peer: [] }, "v.json")).toThrow('v.json: variant name "peer" must be');
    expect(() => parseVariants({ up: [{ file: "../package.json", replace: "a", with: "b" }] }, "v.json")).toThrow("v.json: up[0] must be");
    expect(() => parseVariants({ empty: [{ file: "app.ts", replace: "", with: "b" }] }, "v.json")).toThrow("v.json: empty[0] must be");
    expect(() => parseVariants([], "v.json")).toThrow("v.json: expected an object of variants");
    expect(() => parseVariants({}, "v.json")).toThrow("v.json: no variants");
  });

  it.each(committed)("Should still apply every patch of scripts/bench/%s to src/ as it is", (name) => {
    const spec = parseVariants(JSON.parse(readFileSync(fromRoot(`scripts/bench/${name}`), "utf8")), name);
    for (const [variant, patches] of Object.entries(spec)) {
      const files = new Map<string, string>();
      for (const patch of patches) {
        const text = files.get(patch.file) ?? readFileSync(fromRoot(`src/${patch.file}`), "utf8");
        files.set(patch.file, applyPatch(text, patch, variant));
      }
    }
  });

  it("Should find the committed variants files", () => {
    expect(committed).toEqual(expect.arrayContaining(["variants.event.json", "variants.example.json", "variants.ladder.json"]));
  });
});
