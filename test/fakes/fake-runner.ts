/**
 * @module A {@link ScriptRunner} test double: records every call and answers from a list or a
 * function. For unit tests of the limiter and of the middleware (no Redis, no network).
 */
import type { ScriptRunner } from "../../src/limiter/types.ts";

/** One recorded call. */
export interface FakeCall {
  command: "evalsha" | "eval";
  /** The SHA1 for EVALSHA, the script text for EVAL. */
  script: string;
  keys: string[];
  args: string[];
}

/**
 * A runner that answers each call with `answer(call)` (throw in it to simulate an error).
 *
 * @example
 * const runner = createFakeRunner(() => [1, 1, 9, 1_700_000_001_000, 0]);
 * const limiter = createLimiter(rules, { runner, prefix: "rate" });
 * await limiter.limit({ client: "c", scope: "", now: 1_700_000_000_000 });
 * runner.calls[0]?.keys // ["rate:fixed:{c}:1700000000"]
 */
export function createFakeRunner(answer: (call: FakeCall) => unknown): ScriptRunner & { calls: FakeCall[] } {
  const calls: FakeCall[] = [];
  const run = async (command: FakeCall["command"], script: string, keys: string[], args: string[]) => {
    const call = { command, script, keys, args };
    calls.push(call);
    return answer(call);
  };
  return {
    calls,
    evalsha: (sha1, keys, args) => run("evalsha", sha1, keys, args),
    eval: (script, keys, args) => run("eval", script, keys, args),
  };
}
