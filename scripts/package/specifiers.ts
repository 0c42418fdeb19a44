/**
 * @module Makes tsc's declarations loadable by Node: every relative import names its `.ts` file
 * (the lint holds it so), which tsc rewrites to `.js` in JavaScript (`rewriteRelativeImportExtensions`)
 * but keeps in `.d.ts` files. An extensionless specifier, should one appear, is resolved to its
 * compiled file too. Pure: the caller says which compiled files exist.
 */

/** A relative specifier after `from`, `import(` or a bare `import`, in compiled JS or a `.d.ts`. */
const RELATIVE = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.\.?\/[^"'\n]*)\2/g;

/**
 * Rewrites each extensionless relative specifier in `code` to the compiled file it means:
 * `"./x"` (or `"./x.ts"`) → `"./x.js"` when `exists("./x.js")`, else `"./x/index.js"` when that exists.
 * Specifiers that already end in `.js`, `.mjs`, `.cjs` or `.json` are left as they are.
 * Throws, naming `file` and the specifier, when neither file exists.
 *
 * @example
 * addJsExtensions('export * from "./limiter/index";', "dist/src/lib.js", (s) => s === "./limiter/index.js");
 * // 'export * from "./limiter/index.js";'
 */
export function addJsExtensions(code: string, file: string, exists: (specifier: string) => boolean): string {
  return code.replace(RELATIVE, (whole, lead: string, quote: string, specifier: string) => {
    if (/\.(m?js|cjs|json)$/.test(specifier)) return whole;
    const base = specifier.replace(/\.ts$/, "");
    const target = [`${base}.js`, `${base}/index.js`].find(exists);
    if (!target) throw new Error(`${file}: cannot resolve ${JSON.stringify(specifier)} to a compiled file (tried ${base}.js and ${base}/index.js)`);
    return `${lead}${quote}${target}${quote}`;
  });
}
