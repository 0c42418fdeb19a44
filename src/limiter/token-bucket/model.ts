/**
 * @module The token-bucket (GCRA) check in TypeScript, line for line the Lua of ./script.ts.
 * The TAT is kept as `[ms, ticks]`, Redis's `<ms>:<ticks>` string without the formatting.
 */
import type { RuleCheck, RuleParams } from "../algorithm.ts";
import { TTL_GRACE_MS } from "../assemble-script.ts";
import type { ModelStore } from "../memory/model-store.ts";

/** The model of `token-bucket`: the same reads, outcome and write as the Lua `check`, over {@link ModelStore}. */
export function checkTokenBucket(store: ModelStore, keys: string[], now: number, cost: number, { limit, windowMs, burst }: RuleParams): RuleCheck {
  const key = keys[0]!;
  const stored = store.get<[number, number]>(key, now);
  const backlog = stored === undefined ? 0 : Math.max((stored[0] - now) * limit + stored[1], 0);
  const capacity = burst * windowMs;
  const charged = backlog + cost * windowMs;
  const ok = charged <= capacity;
  let retryMs = 0;
  if (!ok && cost > burst) retryMs = Math.ceil(backlog / limit);
  else if (!ok) retryMs = Math.ceil((charged - capacity) / limit);
  return {
    ok,
    retryMs,
    remaining: Math.floor((capacity - backlog) / windowMs),
    resetAt: now + Math.ceil(backlog / limit),
    chargedRemaining: Math.floor((capacity - charged) / windowMs),
    chargedResetAt: now + Math.ceil(charged / limit),
    charge() {
      const wholeMs = Math.floor(charged / limit);
      store.set(key, [now + wholeMs, charged - wholeMs * limit], Math.ceil(charged / limit) + TTL_GRACE_MS, now);
    },
  };
}
