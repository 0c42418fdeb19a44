/**
 * @module The sliding-window-approx check in TypeScript, line for line the Lua of ./script.ts.
 */
import type { RuleCheck, RuleParams } from "../algorithm.ts";
import { TTL_GRACE_MS } from "../assemble-script.ts";
import type { ModelStore } from "../memory/model-store.ts";

/** The model of `sliding-window-approx`: the same reads, outcome and write as the Lua `check`, over {@link ModelStore}. */
export function checkSlidingWindowApprox(store: ModelStore, keys: string[], now: number, cost: number, { limit, windowMs }: RuleParams): RuleCheck {
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const overlap = windowMs - (now - windowStart);
  const current = store.get<number>(keys[0]!, now) ?? 0;
  const previous = store.get<number>(keys[1]!, now) ?? 0;
  const used = previous * overlap + current * windowMs;
  const capacity = limit * windowMs;
  let resetAt = now;
  if (current > 0) resetAt = windowStart + 2 * windowMs;
  else if (previous > 0) resetAt = windowStart + windowMs;
  const ok = used + cost * windowMs <= capacity;
  let retryMs: number;
  if (ok) retryMs = 0;
  else if (cost > limit) retryMs = resetAt - now;
  else if (current + cost <= limit) retryMs = windowStart + windowMs - Math.floor(((limit - current - cost) * windowMs) / previous) - now;
  else retryMs = windowStart + windowMs + Math.max(windowMs - Math.floor(((limit - cost) * windowMs) / current), 0) - now;
  return {
    ok,
    retryMs,
    remaining: Math.floor((capacity - used) / windowMs),
    resetAt,
    chargedRemaining: Math.floor((capacity - used - cost * windowMs) / windowMs),
    chargedResetAt: windowStart + 2 * windowMs,
    charge() {
      if (current === 0) store.set(keys[0]!, cost, windowStart + 2 * windowMs - now + TTL_GRACE_MS, now);
      else store.update(keys[0]!, current + cost, windowStart + 2 * windowMs - now + TTL_GRACE_MS, now);
    },
  };
}
