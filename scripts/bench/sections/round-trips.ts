/**
 * @module Section 1: HTTP requests to the REST endpoint and bytes per decision, ratewall against
 * `@upstash/ratelimit`, for an allowed request, a repeated refused request and a route with two
 * rules. Requests are counted by the shim; bytes by the shim (bodies) and by a relay in front of
 * it (the wire, headers included). Both limiters run in their Workers, so each one's own caches
 * (ratewall's block cache, the peer's ephemeral cache) act as they would in production. The floor
 * Worker's one PING per request is measured too: the least a round trip can weigh.
 */
import type { AlgorithmName } from "../../../src/limiter/types.ts";
import { type BenchContext, measured, type Outcome } from "../lib/context.ts";
import { clientIps } from "../lib/client-ips.ts";
import { startTcpRelay } from "../../local/tcp-relay.ts";
import type { ServedWorker } from "../lib/miniflare.ts";
import { algorithms, peerAlgorithms } from "../lib/scenarios.ts";

/** The three situations of the issue. */
export type RoundTripScenario = "allowed" | "refused-again" | "two-rules";

/** Per decision, averaged over `decisions` requests. */
export interface RoundTripRow {
  contender: "ratewall" | "peer" | "floor";
  /** `none` for the floor, which decides nothing. */
  algorithm: AlgorithmName | "none";
  scenario: RoundTripScenario;
  /** HTTP requests to the REST endpoint per decision. */
  requests: number;
  /** Request plus response body bytes per decision, as the shim counts them. */
  bodyBytes: number;
  /** Bytes on the wire per decision, both directions, HTTP headers included. */
  wireBytes: number;
  /** Statuses the Worker answered, e.g. `{ "429": 20 }`: proves each decision was what we meant. */
  statuses: Record<string, number>;
}

/** Section 1's data. */
export interface RoundTripData {
  decisions: number;
  rows: RoundTripRow[];
}

/** One measured case: which Worker, on which path, in which situation. */
interface RoundTripCase {
  contender: RoundTripRow["contender"];
  algorithm: RoundTripRow["algorithm"];
  scenario: RoundTripScenario;
  path: string;
}

const scenarioPaths: Record<RoundTripScenario, string> = { allowed: "one", "refused-again": "refuse", "two-rules": "two" };

function cases(withRatewall: boolean): RoundTripCase[] {
  const list: RoundTripCase[] = [{ contender: "floor", algorithm: "none", scenario: "allowed", path: "/" }];
  const limiters = withRatewall
    ? ([
        ["ratewall", algorithms],
        ["peer", peerAlgorithms],
      ] as const)
    : ([["peer", peerAlgorithms]] as const);
  for (const [contender, names] of limiters) {
    for (const algorithm of names) {
      for (const scenario of ["allowed", "refused-again", "two-rules"] as const) {
        list.push({ contender, algorithm, scenario, path: `/rt/${algorithm}/${scenarioPaths[scenario]}` });
      }
    }
  }
  return list;
}

/**
 * Measures every (contender, algorithm, scenario) combination the peer can express, ratewall's
 * sliding log, and the floor's PING.
 *
 * @example
 * const outcome = await measureRoundTrips(ctx);
 */
export async function measureRoundTrips(ctx: BenchContext): Promise<Outcome<RoundTripData>> {
  const { stats } = ctx.stack.rest;
  const relay = await startTcpRelay(ctx.stack.rest.url);
  const via = { name: "relay", upstream: { ...ctx.upstream, restUrl: relay.url } };
  const rows: RoundTripRow[] = [];
  const nextClient = clientIps();
  const n = ctx.profile.roundTrips.decisions;
  try {
    for (const { contender, algorithm, scenario, path } of cases(!ctx.ratewallMissing)) {
      ctx.progress.step(`round trips: ${contender} ${algorithm} ${scenario}`);
      const worker = await ctx.workers.get(contender, { via });
      // The first call of a script may cost a NOSCRIPT and an EVAL; measure the steady state.
      await hit(worker, path, nextClient());
      const refused = nextClient();
      if (scenario === "refused-again") for (let i = 0; i < 2; i++) await hit(worker, path, refused);
      stats.reset();
      relay.resetBytes();
      const statuses: Record<string, number> = {};
      for (let i = 0; i < n; i++) {
        const status = await hit(worker, path, scenario === "refused-again" ? refused : nextClient());
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
      const perDecision = (total: number) => total / n;
      rows.push({
        contender,
        algorithm,
        scenario,
        requests: perDecision(stats.requests),
        bodyBytes: perDecision(stats.bytesIn + stats.bytesOut),
        wireBytes: perDecision(relay.bytes.up + relay.bytes.down),
        statuses,
      });
    }
  } finally {
    await relay.close();
  }
  return measured({ decisions: n, rows });
}

async function hit(worker: ServedWorker, path: string, client: string): Promise<number> {
  const response = await fetch(`${worker.url}${path}`, { headers: { "cf-connecting-ip": client } });
  await response.arrayBuffer();
  return response.status;
}
