/**
 * @module The fixed-window check in TypeScript, line for line the Lua of ./script.ts.
 */
import type { RuleCheck, RuleParams } from "../algorithm.ts";
import { TTL_GRACE_MS } from "../assemble-script.ts";
import type { ModelStore } from "../memory/model-store.ts";

/** The model of `fixed-window`: the same reads, outcome and write as the Lua `check`, over {@link ModelStore}. */
export function checkFixedWindow(store: ModelStore, keys: string[], now: number, cost: number, { limit, windowMs }: RuleParams): RuleCheck {
  const key = keys[0]!;
  const count = store.get<number>(key, now) ?? 0;
  const resetAt = (Math.floor(now / windowMs) + 1) * windowMs;
  return {
    ok: count + cost <= limit,
    retryMs: resetAt - now,
    remaining: limit - count,
    resetAt,
    chargedRemaining: limit - count - cost,
    chargedResetAt: resetAt,
    charge() {
      if (count === 0) store.set(key, cost, resetAt - now + TTL_GRACE_MS, now);
      else store.update(key, count + cost, resetAt - now + TTL_GRACE_MS, now);
    },
  };
}
