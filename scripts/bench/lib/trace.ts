/**
 * @module Long synthetic traces through the algorithms' TypeScript models (no Redis): clients whose
 * rates are drawn log-uniformly around the limit, each a seeded Poisson stream (or on/off bursts),
 * every decision compared with the exact one on the same admitted history (allowed exactly when
 * fewer than `limit` requests were admitted in the trailing window). The models are the ones the
 * differential tests hold equal to the Lua, so these are the Lua's errors.
 */
import type { Algorithm, RuleParams } from "../../../src/limiter/algorithm.ts";
import { ModelStore } from "../../../src/limiter/memory/model-store.ts";

/** A seeded PRNG (mulberry32): the same seed, the same trace, on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** What a trace is made of. */
export interface TraceShape {
  clients: number;
  /** Trace length, in windows. */
  windows: number;
  limit: number;
  windowMs: number;
  seed: number;
  /** On/off periods (mean on: a quarter window, off: half a window) at three times the mean rate while on. */
  bursty: boolean;
}

/** One client: its mean rate as a multiple of the limit's, and its request times (ms, ascending). */
export interface TraceClient {
  rate: number;
  times: number[];
}

/** Rates are drawn log-uniformly from this range, × the limit's rate. */
export const RATE_RANGE = [0.3, 3] as const;
/** Trace time 0; a multiple of every window used. */
const T0 = 1_700_000_000_000;

/**
 * The clients of a trace, one at a time (a full trace holds millions of requests).
 *
 * @example
 * for (const client of traceClients({ clients: 2_000, windows: 60, limit: 50, windowMs: 60_000, seed: 13, bursty: false })) …
 */
export function* traceClients(shape: TraceShape): Generator<TraceClient> {
  const random = seededRandom(shape.seed);
  const end = T0 + shape.windows * shape.windowMs;
  const exponential = (mean: number) => -Math.log(1 - random()) * mean;
  for (let c = 0; c < shape.clients; c++) {
    const rate = Math.exp(Math.log(RATE_RANGE[0]) + random() * Math.log(RATE_RANGE[1] / RATE_RANGE[0]));
    const gapMs = shape.windowMs / (shape.limit * rate); // mean ms between requests
    const times: number[] = [];
    let t = T0 + random() * shape.windowMs; // clients do not start in step
    let onUntil = shape.bursty ? t + exponential(shape.windowMs / 4) : Infinity;
    while (t < end) {
      t += exponential(shape.bursty ? gapMs / 3 : gapMs);
      if (t > onUntil) {
        t = onUntil + exponential(shape.windowMs / 2);
        onUntil = t + exponential(shape.windowMs / 4);
        continue;
      }
      if (t < end) times.push(Math.floor(t));
    }
    yield { rate, times };
  }
}

/** One client's decisions under one algorithm, against the exact ones. */
export interface ClientErrors {
  requests: number;
  admitted: number;
  /** Admitted while `limit` were already admitted in the trailing window. */
  wronglyAllowed: number;
  /** Refused while fewer than `limit` were. */
  wronglyRefused: number;
  /** The most admitted in any trailing window. */
  maxInWindow: number;
}

/**
 * Runs one client's requests through `algorithm`'s model. With `countRefused` every request is
 * charged, refused or not, and the exact decision counts every request in the trailing window:
 * Cloudflare's way of counting a rate. `onDecide` sees each request's time with the trailing count after it.
 *
 * @example
 * const errors = replay(algorithms["sliding-window"], client.times, params, false);
 */
export function replay(
  algorithm: Algorithm,
  times: readonly number[],
  rule: RuleParams,
  countRefused: boolean,
  onDecide?: (t: number, inWindow: number) => void,
): ClientErrors {
  const store = new ModelStore();
  const counted: number[] = []; // times counted by the exact rule, oldest first
  let oldest = 0;
  const errors: ClientErrors = { requests: times.length, admitted: 0, wronglyAllowed: 0, wronglyRefused: 0, maxInWindow: 0 };
  for (const now of times) {
    while (oldest < counted.length && counted[oldest]! <= now - rule.windowMs) oldest++;
    const exact = counted.length - oldest < rule.limit;
    const check = algorithm.check(store, algorithm.keys("trace:{c}", rule, now), now, 1, rule);
    if (check.ok && !exact) errors.wronglyAllowed++;
    if (!check.ok && exact) errors.wronglyRefused++;
    if (check.ok || countRefused) {
      check.charge();
      counted.push(now);
    }
    if (check.ok) errors.admitted++;
    errors.maxInWindow = Math.max(errors.maxInWindow, counted.length - oldest);
    onDecide?.(now, counted.length - oldest);
    if (oldest > 4_096) {
      counted.splice(0, oldest); // keeps a long trace's memory bounded
      oldest = 0;
    }
  }
  return errors;
}
