/**
 * @module The routes both limiters are configured with, from one table, so that ratewall
 * (`ROUTES`) and the peer (`PEER_ROUTES`) always enforce the same algorithm and the same limits
 * on the same path. `@upstash/ratelimit` has no sliding log; routes using it exist for ratewall
 * only.
 */
import type { AlgorithmName } from "../../../src/limiter/types.ts";

/** Every algorithm, in the registry's order. */
export const algorithms: readonly AlgorithmName[] = ["fixed-window", "sliding-log", "sliding-window", "sliding-window-approx", "token-bucket"];

/** The algorithms `@upstash/ratelimit` 2.2 offers under the same semantics. */
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

const hour = 3_600_000;

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
  const two = [{ limit: unreachable, windowMs: 60_000 }, { limit: unreachable, windowMs: hour }];
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

/** ratewall's bindings for these routes: `RATE_LIMIT`, `RATE_LIMIT_ALGORITHM`, `ROUTES`. */
export function ratewallRouteBindings(routes: readonly BenchRoute[]): Record<string, string> {
  const list = routes.map((route) => ({
    pattern: `*${route.path}*`,
    algorithm: route.algorithm,
    rules: route.rules.map((rule, i) => ({ name: `r${i}`, limit: rule.limit, window: `${rule.windowMs}ms` })),
  }));
  return {
    RATE_LIMIT: `${unreachable}/${hour}ms`,
    RATE_LIMIT_ALGORITHM: "fixed-window",
    ROUTES: JSON.stringify(list),
  };
}

/** The peer Worker's `PEER_ROUTES` for these routes (sliding-log routes left out), default `/`. */
export function peerRouteBindings(routes: readonly BenchRoute[]): Record<string, string> {
  const config: Record<string, Array<BenchRule & { algorithm: AlgorithmName }>> = {
    "/": [{ algorithm: "fixed-window", limit: unreachable, windowMs: hour }],
  };
  for (const route of routes) {
    if (peerAlgorithms.includes(route.algorithm)) {
      config[route.path] = route.rules.map((rule) => ({ algorithm: route.algorithm, ...rule }));
    }
  }
  return { PEER_ROUTES: JSON.stringify(config) };
}
