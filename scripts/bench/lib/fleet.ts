/**
 * @module The five Workers under test: how each is built, and the bindings that put it on the
 * bench's stack. Every Worker gets the same origin and REST endpoint; ratewall and the peer get
 * the same routes (scenarios.ts).
 */
import { type Bundler, bundleWorker, type WorkerBundle } from "./bundle.ts";
import { serveWorker, type ServedWorker } from "./miniflare.ts";
import { benchRoutes, hour, peerRouteBindings, ratewallRouteBindings, unreachable } from "./scenarios.ts";

/** The Workers, by role: (a) pass-through, (b) floor, (c) ratewall, (d) peer, (e) lean: ratewall's decision and nothing else. */
export type WorkerKind = "pass-through" | "floor" | "ratewall" | "peer" | "lean";

/** Display order, used by every table and chart. */
export const workerKinds: readonly WorkerKind[] = ["pass-through", "floor", "ratewall", "peer", "lean"];

/** Built bundles by kind. */
export type Bundles = Record<WorkerKind, WorkerBundle>;

/** Where a Worker sends its requests. */
export interface Upstream {
  originUrl: string;
  restUrl: string;
  token: string;
  /** The `/acc/*` routes' limit. */
  accuracyLimit: number;
}

/** What each kind is built from. */
export const targets = {
  "pass-through": { name: "pass-through", entry: "scripts/bench/workers/pass-through.ts" },
  floor: { name: "floor", entry: "scripts/bench/workers/floor.ts" },
  ratewall: { name: "ratewall", entry: "src/index.ts", projectConfig: true },
  peer: { name: "peer", entry: "scripts/bench/workers/upstash-peer.ts" },
  lean: { name: "lean", entry: "scripts/bench/workers/lean.ts" },
} as const;

/**
 * Builds the five Workers, two or three at a time (a 2-core machine).
 *
 * @example
 * const bundles = await buildBundles(join(workDir, "bundles"), "wrangler");
 */
export async function buildBundles(outDir: string, bundler: Bundler): Promise<Bundles> {
  const built: Partial<Bundles> = {};
  for (const pair of [workerKinds.slice(0, 2), workerKinds.slice(2)]) {
    const bundles = await Promise.all(pair.map((kind) => bundleWorker(targets[kind], outDir, bundler)));
    for (const [i, kind] of pair.entries()) built[kind] = bundles[i]!;
  }
  return built as Bundles;
}

/**
 * The bindings of one kind of Worker on `upstream`. ratewall fails closed here: a benchmark must
 * see Redis errors as errors (503), not as fast forwarded requests.
 */
export function bindingsFor(kind: WorkerKind, upstream: Upstream, keyPrefix: string): Record<string, string> {
  const rest = { UPSTASH_REDIS_REST_URL: upstream.restUrl, UPSTASH_REDIS_REST_TOKEN: upstream.token };
  const routes = benchRoutes(upstream.accuracyLimit);
  if (kind === "pass-through") return { ORIGIN_URL: upstream.originUrl };
  if (kind === "floor") return { ORIGIN_URL: upstream.originUrl, ...rest };
  if (kind === "peer") return { ORIGIN_URL: upstream.originUrl, ...rest, ...peerRouteBindings(routes) };
  // ratewall's default rule, the one the bench's `/` routes count.
  if (kind === "lean")
    return { ORIGIN_URL: upstream.originUrl, ...rest, LEAN_LIMIT: String(unreachable), LEAN_WINDOW_MS: String(hour), KEY_PREFIX: `${keyPrefix}lean` };
  return {
    ORIGIN_URL: upstream.originUrl,
    ...rest,
    ...ratewallRouteBindings(routes),
    KEY_PREFIX: keyPrefix,
    FAILURE_MODE: "closed",
    MODE: "enforce",
    // As patient as the peer's default timeout (5 s): under load, a timeout is not a decision.
    REDIS_TIMEOUT_MS: "5000",
  };
}

/**
 * Serves `bundle` as a Worker of `kind` (its bindings and, for ratewall, its analytics) on
 * `upstream`, with `extra.bindings` beside its own and its inspector on `extra.inspectorPort` if
 * given. The bundle is passed on its own so that a variant of a kind (section 10's harness, a
 * patched copy of src/) is served exactly as the kind is.
 *
 * @example
 * const ratewall = await serveKind("ratewall", bundles.ratewall, upstream, "bench1");
 */
export function serveKind(
  kind: WorkerKind,
  bundle: WorkerBundle,
  upstream: Upstream,
  keyPrefix: string,
  extra: { bindings?: Record<string, string>; inspectorPort?: number } = {},
): Promise<ServedWorker> {
  // ratewall runs as deployed with analytics on: every decision writes an Analytics Engine data point.
  const analytics = kind === "ratewall" ? { analyticsEngineDatasets: { RATEWALL_ANALYTICS: { dataset: "ratewall_bench" } } } : {};
  const inspector = extra.inspectorPort ? { inspectorPort: extra.inspectorPort } : {};
  return serveWorker(bundle, { ...bindingsFor(kind, upstream, keyPrefix), ...extra.bindings }, { ...analytics, ...inspector });
}

/**
 * Whether the ratewall Worker limits yet: two requests from one client on a `1/1h` route must
 * give 200 then 429. Returns the reason when it does not.
 */
export async function probeRatewall(worker: ServedWorker): Promise<string | undefined> {
  const client = { "cf-connecting-ip": "192.0.2.250" };
  const statuses: number[] = [];
  for (let i = 0; i < 2; i++) {
    const response = await fetch(`${worker.url}/rt/fixed-window/refuse/probe`, { headers: client });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  if (statuses[0] === 200 && statuses[1] === 429) return undefined;
  return `src/index.ts does not limit yet: two requests on a 1/1h route answered ${statuses.join(", ")}`;
}
