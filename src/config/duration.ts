/**
 * @module Window lengths: `"<n><unit>"` → milliseconds (upstash's duration.ts, stricter: no
 * spaces, no fractions, no unitless numbers, so `10 secs` and `1.5m` are errors, not guesses).
 */

/** A window as written in `RATE_LIMIT` and `ROUTES`: `500ms`, `10s`, `5m`, `1h`, `1d`. */
export type Duration = `${number}${"ms" | "s" | "m" | "h" | "d"}`;

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^([1-9][0-9]{0,9})(ms|s|m|h|d)$/;

/**
 * Parses a window length; `undefined` when the text is not a valid {@link Duration}.
 *
 * @example
 * parseDuration("60s"); // 60000
 * parseDuration("10 secs"); // undefined
 */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (!match) return undefined;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return Number.isSafeInteger(ms) ? ms : undefined;
}
