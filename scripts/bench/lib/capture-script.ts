/**
 * @module Finds out exactly which script, KEYS and ARGV ratewall's limiter sends for one
 * decision, by handing `createLimiter` a runner that records instead of calling Redis. The bench
 * then replays that call, so it measures ratewall's real script without knowing its file layout.
 */
import { createLimiter } from "../../../src/limiter/index.ts";
import type { Rule, ScriptRunner } from "../../../src/limiter/types.ts";

/** One script call, as ratewall would send it. */
export interface ScriptCall {
  script: string;
  keys: string[];
  args: string[];
}

/**
 * Records the EVAL that `createLimiter(rules)` sends for one decision (the recorder answers
 * EVALSHA with NOSCRIPT to obtain the script text).
 *
 * @example
 * const call = await captureScriptCall([rule], { client: "c1", scope: "", now }, "bench");
 */
export async function captureScriptCall(rules: Rule[], request: { client: string; scope: string; now: number }, prefix: string): Promise<ScriptCall> {
  let call: ScriptCall | undefined;
  const recorder: ScriptRunner = {
    evalsha: () => Promise.reject(new Error("NOSCRIPT No matching script. Please use EVAL.")),
    eval: (script, keys, args) => {
      call = { script, keys, args };
      return Promise.reject(new Error("recorded"));
    },
  };
  await createLimiter(rules, { runner: recorder, prefix })
    .limit(request)
    .catch(() => undefined);
  if (!call) throw new Error("createLimiter did not send a script");
  return call;
}
