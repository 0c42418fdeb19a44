/**
 * @module Small statistics for interleaved rounds: medians, and ratios taken round by round so
 * that drift on a shared machine (which moves every contender of a round together) cancels out.
 */

/** The median of `values` (the mean of the middle two for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * The median over rounds of `a[i] / b[i]`: each ratio compares two measurements taken seconds
 * apart, which is what makes it meaningful on a noisy machine.
 *
 * @example
 * pairedRatio([900, 1000], [450, 520]) // → ~1.96
 */
export function pairedRatio(a: readonly number[], b: readonly number[]): number {
  const ratios = a.map((value, i) => value / b[i]!).filter(Number.isFinite);
  return median(ratios);
}

/** The smallest and largest per-round ratio `a[i] / b[i]`: how much the rounds disagreed. */
export function ratioRange(a: readonly number[], b: readonly number[]): [number, number] {
  const ratios = a.map((value, i) => value / b[i]!).filter(Number.isFinite);
  return ratios.length ? [Math.min(...ratios), Math.max(...ratios)] : [Number.NaN, Number.NaN];
}
