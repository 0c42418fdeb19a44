/**
 * @module The in-memory key space of the TypeScript model: values with a TTL on the injected
 * clock, as Redis keeps them. Expired keys read as absent and are dropped when touched, or by
 * {@link ModelStore.sweep}.
 */

interface Entry {
  value: unknown;
  /** ms since the epoch; the key is gone from this instant on. */
  expiresAt: number;
}

/** A per-isolate map of keys to values with expiry times. Not shared between isolates. */
export class ModelStore {
  private readonly entries = new Map<string, Entry>();

  /** The value of `key` at `now`, or undefined when absent or expired. */
  get<T>(key: string, now: number): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (now >= entry.expiresAt) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value as T;
  }

  /** Stores `value` for `ttlMs` from `now` (SET … PX, or a write followed by PEXPIRE); `Infinity` never expires. */
  set(key: string, value: unknown, ttlMs: number, now: number): void {
    this.entries.set(key, { value, expiresAt: now + ttlMs });
  }

  /** Replaces the value and keeps the TTL (a write without PEXPIRE); absent keys are created with `ttlMs`. */
  update(key: string, value: unknown, ttlMs: number, now: number): void {
    const entry = this.entries.get(key);
    if (entry === undefined || now >= entry.expiresAt) this.set(key, value, ttlMs, now);
    else entry.value = value;
  }

  /** PTTL: ms until `key` expires; -1 when it never does, -2 when it is absent. */
  pttl(key: string, now: number): number {
    const entry = this.entries.get(key);
    if (entry === undefined || now >= entry.expiresAt) return -2;
    return entry.expiresAt === Number.POSITIVE_INFINITY ? -1 : entry.expiresAt - now;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Number of keys held, expired ones included until they are touched or swept. */
  get size(): number {
    return this.entries.size;
  }

  /** Drops every key expired at `now`, so that idle clients do not hold memory. */
  sweep(now: number): void {
    for (const [key, entry] of this.entries) if (now >= entry.expiresAt) this.entries.delete(key);
  }
}
