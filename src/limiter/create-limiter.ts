/**
 * @module The Redis-backed limiter: one script call per decision, whatever the number of rules.
 */
import { expectMethods, RedisRestError } from "../errors.ts";
import { checkPrefix } from "../keys/build-key.ts";
import { parseReply } from "./reply.ts";
import { runScript } from "./run-script.ts";
import { compilePlan, type Policy } from "./plan.ts";
import * as resetScript from "./reset/script.ts";
import * as statusScript from "./status/script.ts";
import type { Limiter, ScriptRunner } from "./types.ts";

/** What the limiter talks to, and how it names its keys. */
export interface LimiterDeps {
  /** Redis, narrowed to EVALSHA and EVAL (src/redis/client.ts, or a fake in unit tests). */
  runner: ScriptRunner;
  /** First segment of every key (`KEY_PREFIX`), e.g. `rate`. */
  prefix: string;
  /**
   * Whether the client's dynamic list entry decides before the rules. Off for the admin API's
   * guard on failed tokens: an allowed address must not guess without limit, and a denied one
   * must still reach the API that lifts the deny.
   * @default true
   */
  lists?: boolean;
}

/** What a {@link ScriptRunner} must have, checked when a limiter is created. */
export const RUNNER_METHODS = ["evalsha", "eval"];

/**
 * Validates the policy once (throws RangeError naming the rule) and returns a limiter that decides
 * each request with one EVALSHA: the client's list entry and tier read, all rules of its tier
 * checked, then all charged, or none. A refused request consumes nothing. Errors from Redis (RedisRestError) are thrown: the caller applies
 * `FAILURE_MODE`.
 *
 * @example
 * const limiter = createLimiter(
 *   [
 *     { name: "burst", algorithm: "fixed-window", limit: 10, windowMs: 1_000 },
 *     { name: "hourly", algorithm: "token-bucket", limit: 1_000, windowMs: 3_600_000 },
 *   ],
 *   { runner: createRedisRunner({ url, token, timeoutMs: 50 }), prefix: "rate" },
 * );
 * const decision = await limiter.limit({ client: "203.0.113.7", scope: "api", now: Date.now() });
 * if (!decision.allowed) console.log(`retry in ${decision.retryAfter} s`);
 */
export function createLimiter(policy: Policy, { runner, prefix, lists = true }: LimiterDeps = {} as LimiterDeps): Limiter {
  const plan = compilePlan(policy);
  expectMethods("runner", runner, RUNNER_METHODS);
  checkPrefix(prefix);
  return {
    rules: plan.rules,
    async limit(request) {
      const { keys, args } = plan.arguments(request, prefix, lists);
      return parseReply(await runScript(runner, plan.script, keys, args), plan, request.now, request.clients);
    },
    async status(request) {
      const { keys, args } = plan.arguments(request, prefix, lists);
      return parseReply(await runScript(runner, statusScript, keys, args), plan, request.now, request.clients);
    },
    async reset(request, only) {
      const keys = plan.ruleKeys(request, prefix, only);
      if (keys.length === 0) return 0;
      const deleted = await runScript(runner, resetScript, keys, []);
      if (typeof deleted !== "number") throw new RedisRestError("reply", "evalsha", `unexpected reset reply ${JSON.stringify(deleted).slice(0, 200)}`);
      return deleted;
    },
  };
}
