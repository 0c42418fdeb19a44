#!/usr/bin/env node
/**
 * @module `npm run shim`: runs the Upstash REST shim in front of a Redis until SIGINT/SIGTERM.
 *
 * @example
 * npm run shim -- --port 8079 --redis-url redis://127.0.0.1:6380 --token "$(openssl rand -hex 16)"
 */
import { CliUsageError, isLoopback, maskCredentials, parseCliOptions, USAGE } from "./cli-options.ts";
import { versionAsked } from "../cli-usage.ts";
import { startShim } from "./index.ts";

async function main() {
  const version = versionAsked(process.argv.slice(2));
  if (version) return void console.log(version);
  const options = parseCliOptions(process.argv.slice(2), process.env);
  if (!options) return void console.log(USAGE);
  if (!isLoopback(options.host)) {
    console.warn(
      `upstash-shim: warning: listening on ${options.host}, reachable from other machines; anyone with the token can run commands on ${maskCredentials(options.redisUrl)}`,
    );
  }
  const shim = await startShim(options);
  console.log(`upstash-shim: listening on ${shim.url} (${options.cluster ? "Redis Cluster via" : "Redis"} ${maskCredentials(options.redisUrl)})`);
  const stop = () => void shim.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error) => {
  if (error instanceof CliUsageError) {
    console.error(`upstash-shim: ${error.message}\n${USAGE}`);
  } else {
    console.error(`upstash-shim: could not start: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.exit(1);
});
