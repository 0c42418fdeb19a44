/**
 * @module The README's algorithm guide: which algorithm to choose for what, with the figures this
 * run measured (section 8's Poisson trace, section 6's memory). Pure: from results to Markdown.
 */
import type { AlgorithmName } from "../../../src/limiter/types.ts";
import { bytes, percent, ratio, table } from "./markdown.ts";
import type { BenchResults } from "./results.ts";

/** What each algorithm is for, in the guide's order. */
const USES: Array<[AlgorithmName, string]> = [
  ["sliding-window", '"at most N per window", never exceeded, any limit (the usual choice)'],
  ["sliding-log", "the same, exact to the request, for small limits (logins, one-time codes)"],
  ["token-bucket", "a smooth rate with a burst allowance (not a window limit: the trace counts its bursts as over)"],
  ["fixed-window", "the cheapest counter, when a burst across a window's edge is acceptable"],
  ["sliding-window-approx", "the cheapest smooth window, as Cloudflare counts it, for limits of about 10 or more"],
];

/**
 * The guide as a Markdown table, or undefined when the run lacks the trace or memory section.
 *
 * @example
 * const guide = renderAlgorithmGuide(results); // "| you need | choose | …"
 */
export function renderAlgorithmGuide(results: BenchResults): string | undefined {
  const { trace, memory } = results.sections;
  if (trace.status !== "ok" || memory.status !== "ok") return undefined;
  const row = (algorithm: AlgorithmName, band: string) => trace.data.rows.find((r) => r.trace === "poisson" && r.algorithm === algorithm && r.band === band);
  const limits = [...new Set(memory.data.rows.map((r) => r.limit))].sort((a, b) => a - b);
  const memoryOf = (algorithm: AlgorithmName) =>
    limits
      .map((limit) => bytes(memory.data.rows.find((r) => r.contender === "ratewall" && r.algorithm === algorithm && r.limit === limit)?.bytesAtLimit))
      .join(" / ");
  const worstWindow = (algorithm: AlgorithmName) => Math.max(...trace.data.rows.filter((r) => r.algorithm === algorithm).map((r) => r.maxInWindow));
  return [
    `Figures from \`${results.meta.command}\` (${results.meta.profile.name} profile, ${results.meta.date.slice(0, 10)}): the Poisson trace of bench section 8 ` +
      `(${trace.data.clients.toLocaleString("en-US")} clients at 0.3× to 3× a limit of ${trace.data.limit} per ${trace.data.windowMs / 1000} s) and section 6's memory.`,
    "",
    table(
      [
        "you need",
        "choose",
        "wrongly allowed, all decisions",
        "wrongly refused, clients under 0.8×",
        "most in a trailing window (either trace)",
        "admitted vs exact log, clients over 1.2×",
        `memory per client, limit ${limits.map((l) => l.toLocaleString("en-US")).join(" / ")}`,
      ],
      USES.map(([algorithm, use]) => [
        use,
        `\`${algorithm}\``,
        percent(trace.data.wronglyAllowedOverall.find((r) => r.algorithm === algorithm)?.share),
        percent(row(algorithm, "under 0.8×")?.wronglyRefused),
        ratio(worstWindow(algorithm)),
        ratio(row(algorithm, "over 1.2×")?.admittedVsLog),
        memoryOf(algorithm),
      ]),
    ),
  ].join("\n");
}
