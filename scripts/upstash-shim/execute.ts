/**
 * @module Runs validated commands: refuses what Upstash refuses (docs/shim.md §13; § numbers
 * below are that file's), rewrites script commands (§9.4), then hands the rest to Redis. Knows
 * nothing about HTTP.
 */
import { refusal } from "./commands.ts";
import { RequestError, type Command } from "./protocol.ts";
import { type Outcome, type RedisLink, TransactionDiscardedError } from "./redis.ts";
import { ScriptRegistry, type ScriptPlan } from "./scripts.ts";

/** Runs commands the way each endpoint needs. */
export interface Executor {
  /** Commands in order, not atomic; a refused command becomes its own error entry (§7). */
  pipeline(commands: Command[]): Promise<Outcome[]>;
  /** MULTI/EXEC; a refused or queue-time error discards everything → `RequestError(400)` (§8). */
  transaction(commands: Command[]): Promise<Outcome[]>;
}

/**
 * Builds the executor for one shim, with its own script map.
 *
 * @example
 * const run = createExecutor(connectRedis(url));
 * const [reply] = await run.pipeline([{ name: "GET", args: ["k"] }]);
 */
export function createExecutor(redis: RedisLink): Executor {
  const scripts = new ScriptRegistry(() => (redis.majorVersion() ?? 7) >= 7);
  const finish = (plan: ScriptPlan, outcome: Outcome): Outcome => {
    if (outcome instanceof Error) return plan.failed ? plan.failed(outcome) : outcome;
    return plan.after ? plan.after(outcome) : outcome;
  };

  return {
    async pipeline(commands) {
      const refusals = commands.map(refusal);
      const plans = commands.filter((_, i) => refusals[i] === undefined).map((command) => scripts.plan(command));
      const outcomes = await redis.run(plans.map((plan) => plan.command));
      let next = 0;
      return refusals.map((refused) => {
        if (refused !== undefined) return new Error(refused);
        const i = next++;
        return finish(plans[i]!, outcomes[i]!);
      });
    },
    async transaction(commands) {
      const refused = commands.map(refusal).find((message) => message !== undefined);
      if (refused !== undefined) throw new RequestError(400, refused);
      const plans = commands.map((command) => scripts.plan(command));
      try {
        const outcomes = await redis.transaction(plans.map((plan) => plan.command));
        return outcomes.map((outcome, i) => finish(plans[i]!, outcome));
      } catch (error) {
        if (error instanceof TransactionDiscardedError) throw new RequestError(400, error.message);
        throw error;
      }
    },
  };
}
