/**
 * @module Runs a pinned script: EVALSHA first, EVAL only when Redis answers NOSCRIPT (upstash's
 * `safeEval`; docs/shim.md §9.3). Any other failure is thrown as is: an EVAL is never replayed
 * after an ambiguous failure, since a replay can count one request twice (docs/architecture.md,
 * "Failure modes").
 */
import { RedisRestError } from "../errors.ts";
import type { LimiterScript } from "./assemble-script.ts";
import type { ScriptRunner } from "./types.ts";

/**
 * Sends `script` by its SHA1, falling back to the full text once when Redis does not know it yet
 * (a new database, a restart, or SCRIPT FLUSH). Once cached, a call is one round trip. Both calls
 * share the runner's one time bound.
 *
 * @example
 * const reply = await runScript(runner, fixedWindow.script, keys, args);
 */
export async function runScript(runner: ScriptRunner, script: LimiterScript, keys: string[], args: string[]): Promise<unknown> {
  // One clock read, no timer: the EVAL, if any, gets what is left of the EVALSHA's bound, so a
  // cold script stays within REDIS_TIMEOUT_MS instead of twice it.
  const startedAt = Date.now();
  try {
    return await runner.evalsha(script.sha1, keys, args);
  } catch (error) {
    if (!isNoScript(error)) throw error;
    return runner.eval(script.source, keys, args, startedAt);
  }
}

/**
 * Only Redis's own NOSCRIPT reply says the script did not run. The word anywhere else (a 5xx
 * page, another error that quotes it) says nothing of the sort, and an EVAL after it could count
 * the request twice.
 */
function isNoScript(error: unknown): boolean {
  if (error instanceof RedisRestError) return error.kind === "reply" && error.detail.startsWith("NOSCRIPT");
  // Another runner: its message is Redis's reply as is (ioredis's ReplyError, @upstash/redis's
  // `UpstashError` for a lone command), or the reply after @upstash/redis's prefix for a command it
  // sent in an auto-pipeline, its default.
  return error instanceof Error && (error.message.startsWith("NOSCRIPT") || error.message.startsWith(PIPELINED_NOSCRIPT));
}

/** How @upstash/redis words Redis's NOSCRIPT reply to a command of an auto-pipeline. */
const PIPELINED_NOSCRIPT = "Command failed: NOSCRIPT";
