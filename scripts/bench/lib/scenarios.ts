/**
 * @module The routes both limiters are configured with, from one table, so that ratewall
 * (`ROUTES`) and the peer (`PEER_ROUTES`) always enforce the same algorithm and the same limits
 * on the same path. `@upstash/ratelimit` has no sliding log; routes using it exist for ratewall
 * only.
 */
import type { AlgorithmName } from "../../../src/limiter/types.ts";

/** Every algorithm, in the registry's order. */
export const algorithms: readonly AlgorithmName[] = ["fixed-window", "sliding-log", "sliding-window", "sliding-window-approx", "token-bucket"];

/**
 * The algorithms `@upstash/ratelimit` 2.2 offers, under the names of ratewall's closest. Its
 * `slidingWindow` is the two-window estimate of ratewall's `sliding-window-approx`, so the
 * `sliding-window` rows set ratewall's exact bucketed window, which keeps more, against it.
 */
export const peerAlgorithms: readonly AlgorithmName[] = ["fixed-window", "sliding-window", "token-bucket"];

/** A limit no run reaches; ratewall caps limit × window at 2^50, so 10^8 fits windows up to 3 h. */
export const unreachable = 100_000_000;

/** One limit on one route. */
export interface BenchRule {
  limit: number;
  windowMs: number;
}

/** One route: a path prefix, an algorithm, its rules (all must admit). */
export interface BenchRoute {
  path: string;
  algorithm: AlgorithmName;
  rules: BenchRule[];
}

/** An hour, ms: the window of the bench's default rule. */
export const hour = 3_600_000;

/**
 * Every route the bench uses: `/two` (throughput, two rules), `/rt/<algorithm>/{one,refuse,two}`
 * (round trips), `/acc/<algorithm>` (accuracy, `accuracyLimit` per hour). Anything else falls to
 * the default rule, one unreachable fixed-window limit.
 *
 * @example
 * benchRoutes(100).find((route) => route.path === "/acc/token-bucket");
 */
export function benchRoutes(accuracyLimit: number): BenchRoute[] {
  const one = [{ limit: unreachable, windowMs: hour }];
  // Two different windows, as a real route would have (a per-minute limit and an hourly one).
  const two = [
    { limit: unreachable, windowMs: 60_000 },
    { limit: unreachable, windowMs: hour },
  ];
  return [
    { path: "/two", algorithm: "fixed-window", rules: two },
    ...algorithms.flatMap((algorithm): BenchRoute[] => [
      { path: `/rt/${algorithm}/one`, algorithm, rules: one },
      { path: `/rt/${algorithm}/refuse`, algorithm, rules: [{ limit: 1, windowMs: hour }] },
      { path: `/rt/${algorithm}/two`, algorithm, rules: two },
      { path: `/acc/${algorithm}`, algorithm, rules: [{ limit: accuracyLimit, windowMs: hour }] },
    ]),
  ];
}

/** The policy section's paths (section 9): a static deny list, dynamic entries, tiers. */
export const POLICY = { staticDeny: "/pol/static-deny", dynamic: "/pol/dynamic", tiers: "/pol/tiers" } as const;

/** The static deny list's clients: 198.51.100.0/24 (RFC 5737 documentation space). */
export const STATIC_DENY_PREFIX = "198.51.100";

/** Both limiters' tiers on `POLICY.tiers`: unreachable limits, so every decision is a real one. */
const benchTiers = { free: { limit: unreachable, windowMs: hour }, pro: { limit: unreachable, windowMs: 60_000 } };

/** ratewall's bindings for these routes: `RATE_LIMIT`, `RATE_LIMIT_ALGORITHM`, `ROUTES`, `TIERS`. */
export function ratewallRouteBindings(routes: readonly BenchRoute[]): Record<string, string> {
  const rulesOf = (rules: readonly BenchRule[]) => rules.map((rule, i) => ({ name: `r${i}`, limit: rule.limit, window: `${rule.windowMs}ms` }));
  const list: object[] = routes.map((route) => ({ pattern: `*${route.path}*`, algorithm: route.algorithm, rules: rulesOf(route.rules) }));
  const one = rulesOf([{ limit: unreachable, windowMs: hour }]);
  list.push(
    { pattern: `*${POLICY.staticDeny}*`, rules: one, deny: [`ip:${STATIC_DENY_PREFIX}.0/24`] },
    { pattern: `*${POLICY.dynamic}*`, rules: one },
    { pattern: `*${POLICY.tiers}*`, tiers: "free" },
  );
  return {
    RATE_LIMIT: `${unreachable}/${hour}ms`,
    RATE_LIMIT_ALGORITHM: "fixed-window",
    ROUTES: JSON.stringify(list),
    TIERS: JSON.stringify(Object.fromEntries(Object.entries(benchTiers).map(([tier, rule]) => [tier, rulesOf([rule])]))),
  };
}

/**
 * The peer Worker's `PEER_ROUTES` for these routes (sliding-log routes left out), default `/`,
 * and `PEER_TIERS`: per path, a `Ratelimit` per tier, chosen by the client's tier in Redis.
 */
export function peerRouteBindings(routes: readonly BenchRoute[]): Record<string, string> {
  const config: Record<string, Array<BenchRule & { algorithm: AlgorithmName }>> = {
    "/": [{ algorithm: "fixed-window", limit: unreachable, windowMs: hour }],
  };
  for (const route of routes) {
    if (peerAlgorithms.includes(route.algorithm)) {
      config[route.path] = route.rules.map((rule) => ({ algorithm: route.algorithm, ...rule }));
    }
  }
  const tiers = Object.fromEntries(Object.entries(benchTiers).map(([tier, rule]) => [tier, { algorithm: "fixed-window", ...rule }]));
  return { PEER_ROUTES: JSON.stringify(config), PEER_TIERS: JSON.stringify({ [POLICY.tiers]: tiers }) };
}
