/**
 * @module The sliding-log check in TypeScript, line for line the Lua of ./script.ts. The sorted
 * set is an ascending array of request times (members only exist to be unique in Redis).
 */
import type { RuleCheck, RuleParams } from "../algorithm.ts";
import { TTL_GRACE_MS } from "../assemble-script.ts";
import type { ModelStore } from "../memory/model-store.ts";

/** The model of `sliding-log`: the same reads, outcome and write as the Lua `check`, over {@link ModelStore}. */
export function checkSlidingLog(store: ModelStore, keys: string[], now: number, cost: number, { limit, windowMs }: RuleParams): RuleCheck {
  const key = keys[0]!;
  const log = (store.get<number[]>(key, now) ?? []).filter((at) => at > now - windowMs);
  if (log.length === 0) store.delete(key);
  else store.update(key, log, windowMs, now);
  const count = log.length;
  const newest = log.at(-1);
  const resetAt = newest === undefined ? now : newest + windowMs;
  let retryMs = resetAt - now;
  if (count + cost > limit && cost <= limit) retryMs = log[count + cost - limit - 1]! + windowMs - now;
  const chargedResetAt = Math.max(resetAt, now + windowMs);
  return {
    ok: count + cost <= limit,
    retryMs,
    remaining: limit - count,
    resetAt,
    chargedRemaining: limit - count - cost,
    chargedResetAt,
    charge() {
      const next = [...log, ...Array<number>(cost).fill(now)].sort((a, b) => a - b);
      store.set(key, next, chargedResetAt - now + TTL_GRACE_MS, now);
    },
  };
}
