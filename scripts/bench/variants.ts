/**
 * @module `npm run bench:variants -- FILE [--concurrency N] [--rounds N] [--seconds S]`: what a
 * change to ratewall's source does to the real stack, before it is made. FILE holds variants,
 * each a list of literal replacements in `src/` (lib/source-variants.ts); every variant is built
 * from a patched copy, served beside ratewall itself and the lean Worker on one bench stack, and
 * loaded in interleaved rounds. It prints, per Worker, workerd's CPU per request (from /proc, as
 * section 2 reads it) and req/s, with each variant's CPU as a median of paired per-round ratios to
 * ratewall's. This is the instrument behind docs/performance.md, entry 15: a removal that moves
 * the figure by less than its rounds' range is not where the time goes. Example variants:
 * scripts/bench/variants.example.json, whose `control` patches nothing: ratewall again in a
 * process of its own, so its ratio shows how far two runs of the same code drift apart.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleWorker, type WorkerBundle } from "./lib/bundle.ts";
import { serveKind, targets, type Upstream } from "./lib/fleet.ts";
import { interleave } from "./lib/interleave.ts";
import { positiveNumber, readFlags } from "../flags.ts";
import { createLoadPool } from "./lib/load.ts";
import { int, num, ratio, table } from "./lib/markdown.ts";
import type { ServedWorker } from "./lib/miniflare.ts";
import { startStack } from "./lib/stack.ts";
import { median, pairedRatio, ratioRange } from "./lib/stats.ts";
import { buildVariantBundles } from "./lib/variant-bundles.ts";
import { cpuNs } from "../local/process-cpu.ts";

const { file, concurrency, rounds, seconds } = readFlags(
  "usage: npm run bench:variants -- FILE [--concurrency N] [--rounds N] [--seconds S]",
  {
    allowPositionals: true,
    options: { concurrency: { type: "string", default: "10" }, rounds: { type: "string", default: "10" }, seconds: { type: "string", default: "2" } },
  },
  ({ values, positionals }) => {
    if (positionals.length !== 1) throw new Error(`expected one variants FILE, got ${positionals.length}`);
    return {
      file: positionals[0]!,
      concurrency: positiveNumber("--concurrency", values.concurrency, true),
      rounds: positiveNumber("--rounds", values.rounds, true),
      seconds: positiveNumber("--seconds", values.seconds, false),
    };
  },
);

process.env.WRANGLER_SEND_METRICS = "false";
const variants = await buildVariantBundles(file);
const load = createLoadPool();
const served = new Map<string, ServedWorker>();
let bundlesDir: string | undefined;
try {
  bundlesDir = await mkdtemp(join(tmpdir(), "ratewall-variants-"));
  const bundles = new Map<string, { kind: "ratewall" | "lean"; bundle: WorkerBundle }>();
  bundles.set("ratewall", { kind: "ratewall", bundle: await bundleWorker(targets.ratewall, bundlesDir, "esbuild") });
  bundles.set("lean", { kind: "lean", bundle: await bundleWorker(targets.lean, bundlesDir, "esbuild") });
  for (const [name, bundle] of variants.bundles) bundles.set(name, { kind: "ratewall", bundle });
  const stack = await startStack();
  try {
    const upstream: Upstream = { originUrl: stack.origin.url, restUrl: stack.rest.url, token: stack.rest.token, accuracyLimit: 100 };
    for (const [name, { kind, bundle }] of bundles) {
      served.set(name, await serveKind(kind, bundle, upstream, `v${randomBytes(3).toString("hex")}`));
    }
    const names = [...bundles.keys()];
    const url = (name: string) => `${served.get(name)!.url}/`;
    for (const name of names) await load.run({ url: url(name), connections: concurrency, amount: 2000, headers: { "cf-connecting-ip": "10.254.0.1" } });
    const byName = await interleave(names, rounds, async (name, round) => {
      const pid = served.get(name)!.pid;
      const before = await cpuNs(pid);
      const result = await load.run({
        url: url(name),
        connections: concurrency,
        seconds,
        headers: { "cf-connecting-ip": `10.${names.indexOf(name)}.${round}.1` },
      });
      const cpuUs = ((await cpuNs(pid)) - before) / 1000 / result.requests;
      if ((result.statuses["200"] ?? 0) !== result.requests)
        throw new Error(`${name} answered ${JSON.stringify(result.statuses)}; every request should be a 200`);
      return { cpuUs, rps: result.rps, p99: result.p99 };
    });
    const cpu = (name: string) => byName[name]!.map((r) => r.cpuUs);
    const rows = names.map((name) => {
      const us = cpu(name);
      const [low, high] = ratioRange(us, cpu("ratewall"));
      return [
        name,
        num(median(us), 0),
        `${num(Math.min(...us), 0)}–${num(Math.max(...us), 0)}`,
        int(median(byName[name]!.map((r) => r.rps))),
        byName[name]!.map((r) => num(r.p99, 0)).join(" "),
        name === "ratewall" ? "1" : `${ratio(pairedRatio(us, cpu("ratewall")))} (${num(low)}–${num(high)})`,
      ];
    });
    process.stdout.write(
      `${table(["Worker", "workerd µs per request", "rounds' range", "req/s", "p99 ms by round", "CPU / ratewall, median of paired rounds (range)"], rows)}\n\n` +
        `${rounds} interleaved rounds of ${seconds} s at c=${concurrency}, after 2,000 unrecorded requests each; esbuild bundles, analytics bound as in the bench.\n`,
    );
  } finally {
    for (const worker of served.values()) await worker.dispose();
    await stack.close();
  }
} finally {
  await load.close();
  await variants.remove();
  if (bundlesDir) await rm(bundlesDir, { recursive: true, force: true });
}
