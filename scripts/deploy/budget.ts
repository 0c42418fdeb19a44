/**
 * @module The deploy budget, read from the one place that states it: README.md's "**Bundle
 * budget:**" line (section "Deploy"), so the figure the test enforces is the figure users read.
 */

const BUDGET_LINE = /\*\*Bundle budget:\*\*[^*]*?\b(\d+(?:\.\d+)?) KiB gzipped/;

/**
 * The gzipped size, in bytes, the deployed Worker must not exceed.
 *
 * @example
 * readBudget("**Bundle budget:** the Worker stays under 40 KiB gzipped …"); // 40960
 */
export function readBudget(readme: string): number {
  const match = BUDGET_LINE.exec(readme);
  if (!match)
    throw new Error('README.md: no "**Bundle budget:** … <n> KiB gzipped" sentence in section "Deploy" (the deploy size check reads its budget there)');
  return Number(match[1]) * 1024;
}
