/**
 * @module The block cache (design.md, "Ask the block cache"): a client that Redis refused until
 * time T is refused again from isolate memory until T, without a Redis call, so that a client
 * hammering a closed window costs nothing. Bounded, least recently used first out; per isolate,
 * so each isolate learns a block on its own first refusal. Time is passed in.
 */
import type { Decision } from "./limiter/types";

/** What is remembered about a blocked client. */
export interface Block {
  /** Refuse until this time, ms since the epoch. */
  until: number;
  /** The refusal Redis gave, for the headers of the answers from memory. */
  decision: Decision;
}

/** A bounded map from client key to {@link Block}. */
export interface BlockCache {
  /** The block for `key` if it still holds at `now`; expired entries are dropped. */
  get(key: string, now: number): Block | undefined;
  set(key: string, block: Block): void;
  readonly size: number;
}

/**
 * Creates a block cache holding at most `capacity` clients.
 *
 * @example
 * const blocks = createBlockCache(10_000);
 * blocks.set("203.0.113.7", { until: now + 18_000, decision });
 * blocks.get("203.0.113.7", now + 1_000); // the block
 */
export function createBlockCache(capacity: number): BlockCache {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`Block cache capacity must be a positive integer, got ${capacity}`);
  // A Map iterates in insertion order: re-inserting on use makes the first key the least recent.
  const entries = new Map<string, Block>();
  return {
    get(key, now) {
      const block = entries.get(key);
      if (!block) return undefined;
      entries.delete(key);
      if (now >= block.until) return undefined;
      entries.set(key, block);
      return block;
    },
    set(key, block) {
      entries.delete(key);
      entries.set(key, block);
      if (entries.size > capacity) entries.delete(entries.keys().next().value!);
    },
    get size() {
      return entries.size;
    },
  };
}
