/**
 * @module Round-robin scheduling of contenders: short rounds, every contender once per round, the
 * starting contender rotated from round to round, so no contender always runs first (warm
 * caches) or last (a busy neighbour's burst), and every other round backward, so that no
 * contender always runs right after the same one (what a round leaves behind: garbage, a warm or
 * busy core). Neighbours stay neighbours either way, so pairs placed side by side stay so.
 */

/**
 * Runs `measure(contender, round)` for every contender in every round, interleaved, and returns
 * the measurements grouped by contender, in round order.
 *
 * @example
 * const byContender = await interleave(["floor", "ratewall"], 3, (name) => load(urls[name]));
 */
export async function interleave<C extends string, M>(
  contenders: readonly C[],
  rounds: number,
  measure: (contender: C, round: number) => Promise<M>,
): Promise<Record<C, M[]>> {
  const results = Object.fromEntries(contenders.map((c) => [c, [] as M[]])) as Record<C, M[]>;
  for (let round = 0; round < rounds; round++) {
    const n = contenders.length;
    for (let i = 0; i < n; i++) {
      // Round r starts with contender r, and goes on forward in even rounds, backward in odd ones.
      const contender = contenders[round % 2 === 0 ? (round + i) % n : (((round - i) % n) + n) % n]!;
      results[contender].push(await measure(contender, round));
    }
  }
  return results;
}
