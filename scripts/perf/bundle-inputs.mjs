import { build } from "esbuild";
const r = await build({
  entryPoints: ["src/index.ts"],
  bundle: true,
  format: "esm",
  target: "es2022",
  platform: "browser",
  conditions: ["workerd", "worker", "browser"],
  minify: true,
  write: false,
  metafile: true,
  external: ["cloudflare:*", "node:*"],
});
const inputs = r.metafile.outputs[Object.keys(r.metafile.outputs)[0]].inputs;
const rows = Object.entries(inputs).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput);
let total = 0;
for (const [, v] of rows) total += v.bytesInOutput;
console.log("total", total);
for (const [k, v] of rows.filter(([k]) => (process.argv[2] ? new RegExp(process.argv[2]).test(k) : true)).slice(0, 40))
  console.log(String(v.bytesInOutput).padStart(7), k);
