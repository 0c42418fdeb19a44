/**
 * @module `npm run hash-scripts`: prints the SHA1 of every limiter script, computed over the exact
 * text (shebang included, as Upstash hashes it), beside the SHA1 pinned in its `script.ts`. Paste a
 * fresh value into `script.ts` after editing the Lua; the pinned-SHA1 test checks both against
 * Redis's SCRIPT LOAD.
 */
import { createHash } from "node:crypto";
import { limiterScripts } from "../src/limiter/scripts.ts";

let stale = 0;
for (const [name, script] of Object.entries(limiterScripts)) {
  const actual = createHash("sha1").update(script.source).digest("hex");
  const mark = actual === script.sha1 ? "ok" : `STALE (pinned ${script.sha1})`;
  if (actual !== script.sha1) stale++;
  console.log(`${actual}  ${name}  ${mark}`);
}
process.exitCode = stale === 0 ? 0 : 1;
