/**
 * @module Distinct client addresses for `cf-connecting-ip`, so that each measured decision can
 * start from a fresh client. Each run draws from 10.0.0.0/8 in order, with a random start so that
 * two runs against one Redis do not share clients.
 */

/**
 * Returns a generator of distinct IPv4 addresses.
 *
 * @example
 * const next = clientIps(); next(); // "10.83.20.7"
 */
export function clientIps(): () => string {
  let n = Math.floor(Math.random() * 0x800000);
  return () => {
    n = (n + 1) & 0xffffff;
    return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  };
}
