/**
 * @module The summary table at the top of the report: one row per headline number, ratewall
 * beside `@upstash/ratelimit`, ratios in the last column. Rows of skipped sections say so.
 */
import type { AlgorithmName } from "../../../src/limiter/types.ts";
import type { RoundTripRow } from "../sections/round-trips.ts";
import { stackTotal, type ThroughputRow } from "../sections/throughput.ts";
import { bytes, int, num, ratio, table } from "./markdown.ts";
import type { BenchResults } from "./results.ts";
import { algorithms } from "./scenarios.ts";

type Row = [measure: string, ratewall: string, peer: string, note: string];

/**
 * Renders the summary table.
 *
 * @example
 * const markdown = summaryTable(results);
 */
export function summaryTable(results: BenchResults): string {
  const rows: Row[] = [
    ...roundTripRows(results),
    ...policyRows(results),
    ...throughputRows(results),
    ...shimRows(results),
    ...cpuRows(results),
    ...accuracyRows(results),
    ...memoryRows(results),
    ...bundleRows(results),
  ];
  return table(["Measure", "ratewall", "@upstash/ratelimit", "Ratios and notes"], rows);
}

function skippedRow(measure: string, reason: string): Row {
  return [measure, "–", "–", `not measured: ${reason.split("\n")[0]}`];
}

function roundTripRows({ sections }: BenchResults): Row[] {
  if (sections.roundTrips.status !== "ok") return [skippedRow("REST round trips per decision", sections.roundTrips.reason)];
  const rows = sections.roundTrips.data.rows.filter((row) => row.algorithm === "fixed-window");
  const pick = (contender: RoundTripRow["contender"], field: "requests" | "wireBytes") =>
    (["allowed", "refused-again", "two-rules"] as const).map((scenario) => {
      const row = rows.find((r) => r.contender === contender && r.scenario === scenario);
      return field === "requests" ? num(row?.requests, row && Number.isInteger(row.requests) ? 0 : 2) : int(row?.[field]);
    });
  const wire = (contender: RoundTripRow["contender"], scenario: string) => rows.find((r) => r.contender === contender && r.scenario === scenario)?.wireBytes;
  const floor = sections.roundTrips.data.rows.find((r) => r.contender === "floor")?.wireBytes;
  return [
    [
      "REST requests per decision: allowed / refused again / two rules (fixed window; ratewall with analytics on)",
      pick("ratewall", "requests").join(" / "),
      pick("peer", "requests").join(" / "),
      "counted at the shim",
    ],
    [
      "Bytes on the wire per decision: allowed / refused again / two rules",
      pick("ratewall", "wireBytes").join(" / "),
      pick("peer", "wireBytes").join(" / "),
      `ratewall/peer: allowed ${ratio(wire("ratewall", "allowed")! / wire("peer", "allowed")!)}, two rules ${ratio(wire("ratewall", "two-rules")! / wire("peer", "two-rules")!)}; ` +
        `floor (one PING) ${int(floor)} B, ratewall/floor allowed ${ratio(wire("ratewall", "allowed")! / floor!)}`,
    ],
  ];
}

function policyRows({ sections }: BenchResults): Row[] {
  if (sections.policy.status !== "ok") return [skippedRow("REST requests per decision with lists and tiers", sections.policy.reason)];
  const { rows, matchNs } = sections.policy.data;
  const requests = (contender: "ratewall" | "peer", scenario: string) => {
    const row = rows.find((r) => r.contender === contender && r.scenario === scenario);
    return row ? num(row.requests, Number.isInteger(row.requests) ? 0 : 2) : "n/a";
  };
  const [small, large] = matchNs;
  return [
    [
      "REST requests per decision: static deny / dynamic deny / dynamic allow / tiers",
      ["static deny", "dynamic deny", "dynamic allow", "tiers"].map((scenario) => requests("ratewall", scenario)).join(" / "),
      `– / – / – / ${requests("peer", "tiers")}`,
      "the peer has no lists; its tiers are a GET, then the tier's limiter",
    ],
    ["Static list match, 10 / 10,000 entries", `${num(small?.ns, 0)} / ${num(large?.ns, 0)} ns`, "n/a", `10,000 entries / 10: ${ratio(large!.ns / small!.ns)}`],
  ];
}

function throughputRows({ sections }: BenchResults): Row[] {
  if (sections.throughput.status !== "ok") return [skippedRow("Throughput and latency through the Worker", sections.throughput.reason)];
  const { rows, ratios } = sections.throughput.data;
  const find = (contender: ThroughputRow["contender"], c: number) => rows.find((r) => r.contender === contender && r.concurrency === c);
  const levels = [...new Set(rows.map((r) => r.concurrency))];
  const out: Row[] = [];
  for (const rules of [1, 2] as const) {
    for (const c of levels) {
      const ours = find(`ratewall-${rules}`, c);
      const peer = find(`peer-${rules}`, c);
      const r = (versus: string, worker = "ratewall") =>
        ratios.find((x) => x.worker === worker && x.concurrency === c && x.rules === rules && x.versus === versus);
      // With one rule, the lean Worker splits ratewall's gap to the floor: the decision itself, and
      // ratewall's code around it; lean/peer is the most any Worker making that decision could reach.
      const lean =
        rules === 1
          ? `; ratewall/lean ${ratio(r("lean")?.rps)} (${range(r("lean")?.rpsRange)}), lean/floor ${ratio(r("floor", "lean")?.rps)} (${range(r("floor", "lean")?.rpsRange)}), lean/peer ${ratio(r("peer", "lean")?.rps)} (${range(r("peer", "lean")?.rpsRange)})`
          : "";
      // The floor over the peer bounds any lead over the peer: no limiter costs less than the floor.
      const bound = `; floor/peer ${ratio(r("peer", "floor")?.rps)} (${range(r("peer", "floor")?.rpsRange)})`;
      const floor = find("floor", c);
      const pass = find("pass-through", c);
      const cell = (row?: ThroughputRow) => (row ? `${int(row.rps)} req/s, p50 ${num(row.p50)} / p99 ${num(row.p99)} ms` : "–");
      out.push([
        `Worker at c=${c}, ${rules === 1 ? "one rule" : "two rules"} (floor ${int(floor?.rps)}, pass-through ${int(pass?.rps)} req/s)`,
        cell(ours),
        cell(peer),
        ours
          ? `medians of per-round ratios: req/s ratewall/floor ${ratio(r("floor")?.rps)} (rounds ${range(r("floor")?.rpsRange)}), /peer ${ratio(r("peer")?.rps)} (${range(r("peer")?.rpsRange)}), /pass-through ${ratio(r("pass-through")?.rps)}${lean}${bound}; p99 ratewall/floor ${ratio(r("floor")?.p99)}, /peer ${ratio(r("peer")?.p99)}`
          : "ratewall not measured",
      ]);
    }
  }
  const top = Math.max(...levels);
  const ours = find("ratewall-1", top);
  const peer = find("peer-1", top);
  const floor = find("floor", top);
  const lean = find("lean-1", top);
  const stack = (row?: ThroughputRow) => (row ? `${num(row.cpu.workerd, 0)} / ${num(row.cpu.shimAndOrigin, 0)} / ${num(row.cpu.redis, 0)} µs` : "–");
  const total = (row?: ThroughputRow) => (row ? stackTotal(row.cpu) : Number.NaN);
  out.push([
    `CPU per request across the stack at c=${top}, one rule: workerd / shim + origin / Redis`,
    stack(ours),
    stack(peer),
    `floor ${stack(floor)}, lean ${stack(lean)}; totals ratewall ${num(total(ours), 0)}, peer ${num(total(peer), 0)}, floor ${num(total(floor), 0)}, lean ${num(total(lean), 0)} µs (medians over rounds, from /proc)`,
  ]);
  return out;
}

function range(values?: [number, number]): string {
  return values ? `${num(values[0])}–${num(values[1])}` : "–";
}

function shimRows({ sections }: BenchResults): Row[] {
  if (sections.shimVsRedis.status !== "ok") return [skippedRow("The shim under load", sections.shimVsRedis.reason)];
  const rows = sections.shimVsRedis.data.rows;
  const out: Row[] = rows.map((row) => [
    `Shim, one EVALSHA at c=${row.concurrency} (direct Redis ${int(row.paths.direct.rps)} req/s, p50 ${num(row.paths.direct.p50, 3)} ms)`,
    `${int(row.paths["ratewall-shim"].rps)} req/s, p50 ${num(row.paths["ratewall-shim"].p50, 3)} ms`,
    `${int(row.paths["peer-shim"].rps)} req/s, p50 ${num(row.paths["peer-shim"].p50, 3)} ms (\`@humanwhocodes/upstash-redis-server\`, a Node shim of a third party)`,
    `ratewall shim / peer shim ${ratio(row.overPeer)} (rounds ${range(row.overPeerRange)}), / direct ${ratio(row.overDirect)} (${range(row.overDirectRange)}); median of per-round ratios`,
  ]);
  const c1 = rows.find((row) => row.concurrency === 1);
  if (c1)
    out.push([
      "p50 the ratewall shim adds to direct Redis at c=1",
      `+${num(c1.addedP50Ms, 3)} ms`,
      `+${num(c1.peerAddedP50Ms, 3)} ms`,
      "median over rounds of each shim's p50 − direct p50",
    ]);
  return out;
}

function cpuRows({ sections }: BenchResults): Row[] {
  if (sections.cpu.status !== "ok") return [skippedRow("CPU per request", sections.cpu.reason)];
  const { rows, ratios } = sections.cpu.data;
  const us = (contender: string) => rows.find((r) => r.contender === contender)?.cpuUs;
  const paired = (contender: string, versus: string) => {
    const found = ratios.find((r) => r.contender === contender && r.versus === versus);
    return found ? `${ratio(found.ratio)} (rounds ${range(found.range)}; of medians ${ratio(found.ofMedians)})` : "–";
  };
  const cell = (contender: string) => `${num(us(contender), 0)} µs`;
  return [
    [
      "CPU per allowed request, one rule (workerd, fetches answered in-process)",
      cell("ratewall-1"),
      cell("peer-1"),
      `ratewall/peer ${paired("ratewall-1", "peer-1")}, both built with ratewall's keep_names = false; against the peer built with wrangler's default keep_names = true, minified (${cell("peer-1-keep-names")}) ${paired("ratewall-1", "peer-1-keep-names")}; floor ${cell("floor")} (floor/peer ${paired("floor", "peer-1")}, the least any limiter could reach), ` +
        `lean ${cell("lean-1")} (ratewall's script and headers alone: lean/peer ${paired("lean-1", "peer-1")}, the least a Worker making ratewall's decision could reach; lean/floor ${paired("lean-1", "floor")}, ratewall/lean ${paired("ratewall-1", "lean-1")}), pass-through ${cell("pass-through")}`,
    ],
    ["CPU per allowed request, two rules", cell("ratewall-2"), cell("peer-2"), `ratewall/peer ${paired("ratewall-2", "peer-2")}`],
    [
      "CPU per request refused from the block cache",
      cell("ratewall-refused"),
      "–",
      `refused / pass-through ${paired("ratewall-refused", "pass-through")}; median of per-round ratios`,
    ],
  ];
}

function accuracyRows({ sections }: BenchResults): Row[] {
  if (sections.accuracy.status !== "ok") return [skippedRow("Admitted under concurrency", sections.accuracy.reason)];
  const { rows, requests, concurrency, limit } = sections.accuracy.data;
  return algorithms.map((algorithm) => {
    const cell = (contender: "ratewall" | "peer") => {
      const row = rows.find((r) => r.contender === contender && r.algorithm === algorithm);
      return row ? `${row.admitted}${row.other ? ` (${row.other} other)` : ""}` : "n/a";
    };
    return [`Admitted of ${int(requests)} at c=${concurrency}, 2 Workers, limit ${limit}: ${algorithm}`, cell("ratewall"), cell("peer"), `exact = ${limit}`];
  });
}

function memoryRows({ sections }: BenchResults): Row[] {
  if (sections.memory.status !== "ok") return [skippedRow("Redis memory per client", sections.memory.reason)];
  const { rows } = sections.memory.data;
  const limits = [...new Set(rows.map((r) => r.limit))];
  const cell = (contender: "ratewall" | "peer", algorithm: AlgorithmName) => {
    const found = limits.map((limit) => rows.find((r) => r.contender === contender && r.algorithm === algorithm && r.limit === limit));
    return found.every((row) => row === undefined) ? "n/a" : found.map((row) => bytes(row?.bytesAtLimit)).join(" / ");
  };
  return algorithms.map((algorithm) => [
    `Redis memory per client at limit ${limits.map(int).join(" / ")}: ${algorithm}`,
    cell("ratewall", algorithm),
    cell("peer", algorithm),
    "quota fully spent, MEMORY USAGE",
  ]);
}

function bundleRows({ sections }: BenchResults): Row[] {
  if (sections.bundles.status !== "ok") return [skippedRow("Bundle size", sections.bundles.reason)];
  const size = (worker: string) => (sections.bundles.status === "ok" ? sections.bundles.data.rows.find((r) => r.worker === worker)?.gzipKiB : undefined);
  return [
    [
      "Worker bundle, minified + gzipped",
      `${num(size("ratewall"))} KiB`,
      `${num(size("peer"))} KiB`,
      `floor ${num(size("floor"))} KiB, pass-through ${num(size("pass-through"))} KiB; ratewall/peer ${ratio(size("ratewall")! / size("peer")!)}, ratewall/floor ${ratio(size("ratewall")! / size("floor")!)}${sections.bundles.data.ratewallNote ? " (ratewall: src/index.ts is not the limiter yet)" : ""}`,
    ],
  ];
}
