/**
 * @module Makes tsc's declarations loadable by Node: every relative import names its `.ts` file
 * (the lint holds it so), which tsc rewrites to `.js` in JavaScript (`rewriteRelativeImportExtensions`)
 * but keeps in `.d.ts` files. Pure: the caller says which compiled files exist.
 */

/** A relative specifier after `from`, `import(` or a bare `import`, in compiled JS or a `.d.ts`. */
const RELATIVE = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.\.?\/[^"'\n]*)\2/g;

/**
 * Rewrites each relative `.ts` specifier in `code` to its compiled `.js` file. Specifiers that
 * already end in `.js`, `.mjs`, `.cjs` or `.json` are left as they are. Throws, naming `file` and
 * the specifier, when the compiled file does not exist or a specifier names no file at all (the
 * lint forbids those, so one that appears is a mistake to show, not to guess at).
 *
 * @example
 * tsToJsSpecifiers('export * from "./limiter/index.ts";', "dist/src/lib.d.ts", (s) => s === "./limiter/index.js");
 * // 'export * from "./limiter/index.js";'
 */
export function tsToJsSpecifiers(code: string, file: string, exists: (specifier: string) => boolean): string {
  return code.replace(RELATIVE, (whole, lead: string, quote: string, specifier: string) => {
    if (/\.(m?js|cjs|json)$/.test(specifier)) return whole;
    if (!specifier.endsWith(".ts")) throw new Error(`${file}: ${JSON.stringify(specifier)} names no file; relative imports name their .ts file`);
    const target = `${specifier.slice(0, -3)}.js`;
    if (!exists(target)) throw new Error(`${file}: ${JSON.stringify(specifier)} has no compiled ${target}`);
    return `${lead}${quote}${target}${quote}`;
  });
}
