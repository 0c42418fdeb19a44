/**
 * @module `npm start`: the whole stack on one machine. Starts `redis-server` (unless REDIS_URL),
 * the Upstash REST shim, a demo origin (unless ORIGIN_URL) and `wrangler dev`, wires them
 * together, and on Ctrl-C stops every child it started.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { startDemoOrigin } from "./local/demo-origin.ts";
import { RedisServerMissingError, startRedisServer, stopChild } from "./local/redis-server.ts";

const port = Number(process.env.PORT ?? 8787);

async function main() {
  const redis = process.env.REDIS_URL ? undefined : await startRedisServer();
  const origin = process.env.ORIGIN_URL ? undefined : await startDemoOrigin({ port: 0 });
  const originUrl = process.env.ORIGIN_URL ?? origin!.url;
  const token = randomBytes(16).toString("hex");
  void token;

  const wrangler = spawn(
    "npx",
    ["wrangler", "dev", "--port", String(port), "--ip", "127.0.0.1", "--var", `ORIGIN_URL:${originUrl}`],
    { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
  );

  console.log(`ratewall: http://127.0.0.1:${port}  (origin ${originUrl})`);
  console.log(`try: curl -i http://127.0.0.1:${port}/hello`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await stopChild(wrangler);
    await origin?.close();
    await redis?.stop();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  wrangler.once("exit", stop);
}

main().catch((error) => {
  console.error(error instanceof RedisServerMissingError ? error.message : error);
  process.exit(1);
});
