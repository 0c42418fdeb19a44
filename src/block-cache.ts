/**
 * @module The block cache (docs/architecture.md, "The request path", step 4): a client that
 * Redis refused until
 * time T is refused again from isolate memory until T, without a Redis call, so that a client
 * hammering a closed window costs nothing. Bounded, least recently used first out; per isolate,
 * so each isolate learns a block on its own first refusal. Time is passed in.
 *
 * An entry is trusted only until {@link Block.recheckAt}, at most {@link BLOCK_RECHECK_MS} after
 * Redis refused: an admin reset reaches every isolate's Redis call but only its own isolate's
 * cache, and this bounds how long the others keep refusing. The entry itself lives until the block
 * ends, so a re-check that refuses again is known to continue the same block (logged once).
 */
import { retryAfterSeconds } from "./headers/rate-limit-headers.ts";
import type { Decision } from "./limiter/types.ts";

/** How long an isolate refuses from memory before asking Redis again, ms (README, "Operating ratewall"). */
export const BLOCK_RECHECK_MS = 10_000;

/** What is remembered about a blocked client. */
export interface Block {
  /** Refuse until this time, ms since the epoch. */
  until: number;
  /** Refuse from memory until this time (≤ `until`); from then on, ask Redis again. */
  recheckAt: number;
  /** The refusal Redis gave, for the headers of the answers from memory. */
  decision: Decision;
}

/** The cache key of a client on a route (its scope): one block per route, as counters are. */
export function blockKey(scope: string, client: string): string {
  return `${scope}\n${client}`;
}

/**
 * Whole seconds until `block` ends, at least 1: the Retry-After of an answer from memory, which
 * counts down (the stored decision's is the one the block began with).
 *
 * @example
 * secondsLeft({ until: 10_500, recheckAt: 5_000, decision }, 5_000); // 6
 */
export function secondsLeft(block: Block, now: number): number {
  return Math.max(1, Math.ceil((block.until - now) / 1000));
}

/**
 * The block a refusal starts: until the limiter's exact retry time when it gives one (else the
 * announced Retry-After), trusted from memory for at most {@link BLOCK_RECHECK_MS} of it.
 *
 * @example
 * blocks.set(blockKey(scope, client), blockFor(decision, now));
 */
export function blockFor(decision: Decision, now: number): Block {
  // A deny without a TTL lasts until an operator lifts it, and so does its block, re-checked every
  // BLOCK_RECHECK_MS like any other: `retryAfterSeconds` would end it after its 1 s floor, and each
  // request after that would ask Redis and log a new block.
  const until = decision.retryAt ?? (decision.reason === "deny-list" ? Number.POSITIVE_INFINITY : now + retryAfterSeconds(decision, now) * 1000);
  return { until, recheckAt: Math.min(until, now + BLOCK_RECHECK_MS), decision };
}

/** A bounded map from client key to {@link Block}. */
export interface BlockCache {
  /** The block for `key` if it still holds at `now`; expired entries are dropped. */
  get(key: string, now: number): Block | undefined;
  set(key: string, block: Block): void;
  /** Forgets `key` (an admin reset, or Redis admitted the client again), its last line included. */
  delete(key: string): void;
  /**
   * Whether a line about a new block of `key` is due at `now`, and if so records it: not within
   * {@link BLOCK_RECHECK_MS} of the last one. A block ends when its refusal does, which for a token
   * bucket is the next token, a fraction of a second later; a client flooding it starts block after
   * block, one flood that is worth one line, not one per token.
   */
  lineDue(key: string, now: number): boolean;
  readonly size: number;
}

/**
 * Creates a block cache holding at most `capacity` clients.
 *
 * @example
 * const blocks = createBlockCache(10_000);
 * blocks.set("203.0.113.7", { until: now + 18_000, recheckAt: now + 10_000, decision });
 * blocks.get("203.0.113.7", now + 1_000); // the block
 */
export function createBlockCache(capacity: number): BlockCache {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`Block cache capacity must be a positive integer, got ${capacity}`);
  // A Map iterates in insertion order: re-inserting on use makes the first key the least recent.
  const entries = new Map<string, Block>();
  // When a line was last written per key, bounded as the blocks are.
  const lines = new Map<string, number>();
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
    delete(key) {
      entries.delete(key);
      lines.delete(key);
    },
    lineDue(key, now) {
      const last = lines.get(key);
      if (last !== undefined && now >= last && now - last < BLOCK_RECHECK_MS) return false;
      lines.delete(key);
      lines.set(key, now);
      if (lines.size > capacity) lines.delete(lines.keys().next().value!);
      return true;
    },
    get size() {
      return entries.size;
    },
  };
}
