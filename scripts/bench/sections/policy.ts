/**
 * @module Section 9: what policy costs. REST requests per decision for a client that a static
 * list denies (decided in the Worker), one that a dynamic list denies or allows, and one on a
 * tiered route (read by the deciding script, in the same call), against `@upstash/ratelimit` with
 * per-client tiers as a user would write them (GET the client's tier, then that tier's
 * `Ratelimit`). And the cost of matching an address against a static list of 10 and of 10,000
 * entries, in this process, to show that list size does not matter.
 */
import { parseList } from "../../../src/config/lists.ts";
import { createClientEntries } from "../../../src/limiter/index.ts";
import { compileList } from "../../../src/lists/match.ts";
import { createRedisRunner } from "../../../src/redis/client.ts";
import { type BenchContext, measured, type Outcome } from "../lib/context.ts";
import type { ServedWorker } from "../lib/miniflare.ts";
import { median } from "../lib/stats.ts";
import { POLICY, STATIC_DENY_PREFIX } from "../lib/scenarios.ts";

/** One case of the section. */
export interface PolicyRow {
  contender: "ratewall" | "peer";
  scenario: "static deny" | "dynamic deny" | "dynamic allow" | "tiers";
  /** REST requests per decision, counted at the shim. */
  requests: number;
  /** What the Worker answered, e.g. `{ "403": 20 }`. */
  statuses: Record<string, number>;
}

/** Section 9's data. */
export interface PolicyData {
  decisions: number;
  rows: PolicyRow[];
  /** Median ns per list match over interleaved rounds, by list size. */
  matchNs: { entries: number; ns: number }[];
}

/**
 * Measures the policy cases and the list-matching cost.
 *
 * @example
 * const outcome = await measurePolicy(ctx);
 */
export async function measurePolicy(ctx: BenchContext): Promise<Outcome<PolicyData>> {
  const n = ctx.profile.roundTrips.decisions;
  const { stats } = ctx.stack.rest;
  const runner = createRedisRunner({ url: ctx.stack.rest.url, token: ctx.stack.rest.token, timeoutMs: 10_000 });
  const entries = createClientEntries(runner, ctx.keyPrefix);
  let serial = 0;
  const fresh = () => `198.19.${(serial >> 8) & 255}.${serial++ & 255}`;
  const rows: PolicyRow[] = [];
  /** n decisions, one fresh client each, after `prepare` wrote whatever the case needs. */
  const measure = async (
    contender: PolicyRow["contender"],
    scenario: PolicyRow["scenario"],
    path: string,
    prepare: (client: string) => Promise<unknown>,
    client = fresh,
  ) => {
    ctx.progress.step(`policy: ${contender} ${scenario}`);
    const worker = await ctx.workers.get(contender);
    await hit(worker, path, client()); // loads the script once: the steady state is what counts
    const clients = Array.from({ length: n }, client);
    for (const each of clients) await prepare(each);
    stats.reset();
    const statuses: Record<string, number> = {};
    for (const each of clients) {
      const status = await hit(worker, path, each);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
    rows.push({ contender, scenario, requests: stats.requests / n, statuses });
  };
  const nothing = async () => undefined;
  if (!ctx.ratewallMissing) {
    let denied = 0;
    await measure("ratewall", "static deny", POLICY.staticDeny, nothing, () => `${STATIC_DENY_PREFIX}.${denied++ % 256}`);
    await measure("ratewall", "dynamic deny", POLICY.dynamic, (client) => entries.setList(client, "deny", 3_600_000));
    await measure("ratewall", "dynamic allow", POLICY.dynamic, (client) => entries.setList(client, "allow", 3_600_000));
    await measure("ratewall", "tiers", POLICY.tiers, (client) => entries.setTier(client, "pro"));
  }
  await measure("peer", "tiers", POLICY.tiers, async (client) => {
    await runner.eval("return redis.call('SET', KEYS[1], ARGV[1])", [`peer-tier:${client}`], ["pro"]);
  });
  return measured({ decisions: n, rows, matchNs: listMatchNs(ctx.profile.roundTrips.decisions > 5 ? 15 : 3) });
}

async function hit(worker: ServedWorker, path: string, client: string): Promise<number> {
  const response = await fetch(`${worker.url}${path}`, { headers: { "cf-connecting-ip": client } });
  await response.arrayBuffer();
  return response.status;
}

/**
 * ns per match of one address against lists of 10 and 10,000 random IPv4 and IPv6 networks of
 * mixed prefix lengths (a hit half the time), rounds interleaved, the median of `rounds`.
 */
function listMatchNs(rounds: number): { entries: number; ns: number }[] {
  let seed = 42;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const byte = () => Math.floor(random() * 256);
  // Networks with their host bits clear (the parser refuses others as typos), and one address
  // inside each to probe with.
  const entry = (i: number): [network: string, inside: string] => {
    const [a, b, c] = [byte(), byte(), byte()];
    if (i % 4 === 3)
      return [`ip:2001:db8:${a.toString(16)}${b.toString(16).padStart(2, "0")}::/48`, `2001:db8:${a.toString(16)}${b.toString(16).padStart(2, "0")}::1`];
    if (i % 3 === 0) return [`ip:${a}.${b}.0.0/16`, `${a}.${b}.${c}.7`];
    if (i % 3 === 1) return [`ip:${a}.${b}.${c & 0xf0}.0/20`, `${a}.${b}.${c & 0xf0}.9`];
    return [`ip:${a}.${b}.${c}.0/24`, `${a}.${b}.${c}.11`];
  };
  const sizes = [10, 10_000];
  const lists = sizes.map((size) => {
    const made = Array.from({ length: size }, (_, i) => entry(i));
    return {
      size,
      made,
      matcher: compileList(
        parseList(
          made.map(([network]) => network),
          { source: "DENY", path: "" },
        ),
      ),
    };
  });
  // Half the probes are in the big list, half random: both lists see the same addresses.
  const probes = Array.from({ length: 2_000 }, (_, i) => (i % 2 ? `${byte()}.${byte()}.${byte()}.${byte()}` : lists[1]!.made[i % 10_000]![1]));
  const samples = new Map<number, number[]>(sizes.map((size) => [size, []]));
  let sink = 0;
  for (let round = 0; round < rounds; round++) {
    for (const { size, matcher } of lists) {
      const started = performance.now();
      for (let repeat = 0; repeat < 50; repeat++) for (const probe of probes) if (matcher.match(probe, undefined, undefined)) sink++;
      samples.get(size)!.push(((performance.now() - started) * 1e6) / (50 * probes.length));
    }
  }
  if (sink < 0) throw new Error("unreachable"); // keeps the loop's result alive
  return sizes.map((size) => ({ entries: size, ns: median(samples.get(size)!) }));
}
