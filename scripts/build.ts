/**
 * @module `npm run build`: the deployable bundle, built offline by `wrangler deploy --dry-run`
 * into dist/, and its size (raw and gzipped, the figure Cloudflare's size limits apply to).
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const outdir = "dist";

/** Every file under `dir`, with its path relative to it. */
function files(dir: string, prefix = ""): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path, join(prefix, name)) : [join(prefix, name)];
  });
}

/** `12.3 KiB` */
function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

const result = spawnSync("npx", ["wrangler", "deploy", "--dry-run", "--outdir", outdir], {
  stdio: ["ignore", "inherit", "inherit"],
  // No telemetry: the build must work offline.
  env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
});
if (result.status !== 0) process.exit(result.status ?? 1);

const bundles = files(outdir).filter((file) => /\.(m?js|wasm)$/.test(file));
let raw = 0;
let gzipped = 0;
for (const file of bundles) {
  const bytes = readFileSync(join(outdir, file));
  const packed = gzipSync(bytes, { level: 9 }).length;
  raw += bytes.length;
  gzipped += packed;
  console.log(`${join(outdir, file)}: ${kib(bytes.length)} (gzip ${kib(packed)})`);
}
console.log(`bundle: ${kib(raw)} raw, ${kib(gzipped)} gzipped`);
