import { describe, expect, it } from "vitest";
import { addJsExtensions } from "./specifiers.ts";

const files = new Set(["./errors.js", "./limiter/index.js", "../types.js"]);
const exists = (specifier: string) => files.has(specifier);

describe("addJsExtensions", () => {
  it("Should point an extensionless import at its compiled file, or at its directory's index.js", () => {
    const code = 'import { RedisRestError } from "./errors";\nexport * from "./limiter";\nexport type { Rule } from \'../types\';';
    expect(addJsExtensions(code, "dist/src/lib.js", exists)).toBe(
      'import { RedisRestError } from "./errors.js";\nexport * from "./limiter/index.js";\nexport type { Rule } from \'../types.js\';',
    );
  });

  it("Should rewrite the import() types that declarations use, and side-effect imports", () => {
    expect(addJsExtensions('let a: import("./errors").ConfigError;\nimport "./errors";', "dist/src/a.d.ts", exists)).toBe(
      'let a: import("./errors.js").ConfigError;\nimport "./errors.js";',
    );
  });

  it("Should point a .ts import, which tsc keeps in declarations, at its compiled .js file", () => {
    expect(addJsExtensions('import type { Command } from "./errors.ts";', "dist/scripts/a.d.ts", exists)).toBe('import type { Command } from "./errors.js";');
  });

  it("Should leave package imports and specifiers that already name a file alone", () => {
    const code = 'import { Hono } from "hono";\nimport { x } from "./errors.js";\nimport data from "./data.json";';
    expect(addJsExtensions(code, "dist/src/a.js", exists)).toBe(code);
  });

  it("Should name the file and the specifier when no compiled file matches", () => {
    expect(() => addJsExtensions('import { y } from "./missing";', "dist/src/a.js", exists)).toThrow(
      'dist/src/a.js: cannot resolve "./missing" to a compiled file (tried ./missing.js and ./missing/index.js)',
    );
  });
});
