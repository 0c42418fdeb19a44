/**
 * @module `npm pack`'s build (package.json "prepack"): compiles the library (tsconfig.build.json)
 * and the shim and admin command lines (scripts/tsconfig.build.json) into dist/src and
 * dist/scripts, with declarations, then makes every relative import name its `.js` file so that
 * Node loads the output as well as bundlers do (README, "Install").
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { tsToJsSpecifiers } from "./specifiers.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const outputs = ["dist/src", "dist/scripts"].map((dir) => join(root, dir));
/** The package's `bin` targets, which must be executable. */
const bins = ["dist/scripts/upstash-shim/cli.js", "dist/scripts/admin/cli.js"];

/** Every file under `dir`. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

for (const dir of outputs) rmSync(dir, { recursive: true, force: true });
const tsc = join(root, "node_modules/typescript/bin/tsc");
for (const project of ["tsconfig.build.json", "scripts/tsconfig.build.json"]) {
  execFileSync(process.execPath, [tsc, "-p", join(root, project)], { cwd: root, stdio: "inherit" });
}
let count = 0;
for (const file of outputs.flatMap(files).filter((path) => /\.(js|d\.ts)$/.test(path))) {
  const code = readFileSync(file, "utf8");
  const fixed = tsToJsSpecifiers(code, file, (specifier) => existsSync(join(dirname(file), specifier)));
  if (fixed !== code) writeFileSync(file, fixed);
  count++;
}
for (const bin of bins) chmodSync(join(root, bin), 0o755);
// On stderr: `npm pack --json` prints the prepack script's stdout ahead of its JSON.
console.error(`package build: ${count} files in dist/src and dist/scripts`);
