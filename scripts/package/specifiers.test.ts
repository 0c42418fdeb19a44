import { describe, expect, it } from "vitest";
import { tsToJsSpecifiers } from "./specifiers.ts";

const files = new Set(["./errors.js", "./limiter/index.js", "../types.js"]);
const exists = (specifier: string) => files.has(specifier);

describe("tsToJsSpecifiers", () => {
  it("Should point a .ts import, which tsc keeps in declarations, at its compiled .js file", () => {
    const code = 'import type { RedisRestError } from "./errors.ts";\nexport * from "./limiter/index.ts";\nexport type { Rule } from \'../types.ts\';';
    expect(tsToJsSpecifiers(code, "dist/src/lib.d.ts", exists)).toBe(
      'import type { RedisRestError } from "./errors.js";\nexport * from "./limiter/index.js";\nexport type { Rule } from \'../types.js\';',
    );
  });

  it("Should rewrite the import() types that declarations use, and side-effect imports", () => {
    expect(tsToJsSpecifiers('let a: import("./errors.ts").ConfigError;\nimport "./errors.ts";', "dist/src/a.d.ts", exists)).toBe(
      'let a: import("./errors.js").ConfigError;\nimport "./errors.js";',
    );
  });

  it("Should leave package imports and specifiers that already name a file alone", () => {
    const code = 'import { Hono } from "hono";\nimport { x } from "./errors.js";\nimport data from "./data.json";';
    expect(tsToJsSpecifiers(code, "dist/src/a.js", exists)).toBe(code);
  });

  it("Should name the file and the specifier when no compiled file matches", () => {
    expect(() => tsToJsSpecifiers('import { y } from "./missing.ts";', "dist/src/a.d.ts", exists)).toThrow(
      'dist/src/a.d.ts: "./missing.ts" has no compiled ./missing.js',
    );
  });

  it("Should refuse an extensionless import instead of guessing which file it means", () => {
    expect(() => tsToJsSpecifiers('import { y } from "./errors";', "dist/src/a.d.ts", exists)).toThrow(
      'dist/src/a.d.ts: "./errors" names no file; relative imports name their .ts file',
    );
  });
});
