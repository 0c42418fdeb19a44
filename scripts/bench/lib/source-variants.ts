/**
 * @module Variants of ratewall's source for an experiment (`npm run bench:variants`, `npm run
 * bench:latency -- --variants`): each variant is a list of literal replacements in files under
 * `src/`, applied to a copy. Pure: the caller reads and writes the files (lib/variant-bundles.ts).
 */

/** One replacement: `replace` must occur exactly once in `src/<file>`. */
export interface SourcePatch {
  file: string;
  replace: string;
  with: string;
}

/** Variants by name, e.g. `{ "no-cf": [{ file, replace, with }] }`. */
export type VariantSpec = Record<string, SourcePatch[]>;

/** Names the tools give their own contenders (bench:variants, bench:latency); a variant may not take them. */
const RESERVED = ["ratewall", "lean", "floor", "peer"];

/**
 * Checks a parsed variants file and returns it typed; `where` (the file's path) starts every error.
 *
 * @example
 * parseVariants(JSON.parse(text), "variants.json");
 */
export function parseVariants(value: unknown, where: string): VariantSpec {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`${where}: expected an object of variants, { "name": [{ "file", "replace", "with" }] }`);
  }
  const entries = Object.entries(value);
  if (entries.length === 0) throw new Error(`${where}: no variants`);
  for (const [name, patches] of entries) {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(name) || RESERVED.includes(name)) {
      throw new Error(`${where}: variant name ${JSON.stringify(name)} must be lowercase letters, digits and dashes, and none of ${RESERVED.join(", ")}`);
    }
    if (!Array.isArray(patches)) throw new Error(`${where}: variant ${name} must be an array of patches`);
    for (const [i, patch] of patches.entries()) {
      const ok =
        typeof patch === "object" &&
        patch !== null &&
        typeof patch.file === "string" &&
        !patch.file.split("/").includes("..") &&
        typeof patch.replace === "string" &&
        patch.replace !== "" &&
        typeof patch.with === "string";
      if (!ok) throw new Error(`${where}: ${name}[${i}] must be { "file": a path under src/, "replace": non-empty text, "with": text }`);
    }
  }
  return value as VariantSpec;
}

/**
 * `text` with `patch` applied. Throws, naming the variant, the file and the text, when the text
 * to replace is missing or occurs more than once: a patch that silently did nothing, or the wrong
 * thing, would time the unchanged code under a new name.
 *
 * @example
 * applyPatch("a(); b();", { file: "x.ts", replace: "b();", with: "" }, "no-b"); // → "a(); "
 */
export function applyPatch(text: string, patch: SourcePatch, variant: string): string {
  const at = text.indexOf(patch.replace);
  const quoted = JSON.stringify(patch.replace.length > 60 ? `${patch.replace.slice(0, 60)}…` : patch.replace);
  if (at < 0) throw new Error(`variant ${variant}: src/${patch.file} does not contain ${quoted}`);
  if (text.indexOf(patch.replace, at + 1) >= 0) throw new Error(`variant ${variant}: src/${patch.file} contains ${quoted} more than once`);
  return text.slice(0, at) + patch.with + text.slice(at + patch.replace.length);
}
