/**
 * @module `npm run bench:latency [-- --requests N] [--variants FILE]`: where one request's latency
 * goes, hop by hop, for the floor, lean, ratewall and the peer (one rule each). Needs `tcpdump`
 * (Debian package tcpdump) and the right to capture on `lo` (root). It serves the Workers on the
 * bench's stack, ratewall twice (the second process is the control: what separates two runs of
 * the same code), sends N requests to each, one at a time and the Workers in turn, after a
 * warm-up, while tcpdump records loopback; then it prints each segment's median
 * (lib/latency-segments.ts).
 *
 * With `--variants FILE` (a variants file, as `npm run bench:variants` reads: lib/source-variants.ts)
 * each variant, a patched copy of `src/`, is served too, between the peer and the control, and
 * compared with ratewall: what a change would do to each hop before it is made.
 *
 * Medians of sequential requests are steadier than throughput on a shared machine, so this is the
 * instrument for a change of tens of µs that repeats across runs (beside busy neighbours the two
 * ratewall processes have differed by up to 95 µs over a whole request). Where `taskset` is there
 * and the machine has two CPUs or more, every workerd goes to CPU 1 and Redis and this process
 * (shim, origin, client) to CPU 0, so that no Worker is luckier than another in where the
 * scheduler puts it.
 */
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { buildBundles, serveKind, type WorkerKind } from "./lib/fleet.ts";
import { positiveNumber, readFlags } from "../flags.ts";
import { type Packet, medianSegments, parsePacket, SEGMENTS, timelines } from "./lib/latency-segments.ts";
import { num, table } from "./lib/markdown.ts";
import type { ServedWorker } from "./lib/miniflare.ts";
import { buildVariantBundles } from "./lib/variant-bundles.ts";
import { type Stack, startStack } from "./lib/stack.ts";

const { requests, variantsFile } = readFlags(
  "usage: npm run bench:latency [-- --requests N] [--variants FILE]  (needs tcpdump and the right to capture on lo)",
  { options: { requests: { type: "string", default: "3000" }, variants: { type: "string" } } },
  ({ values }) => ({ requests: positiveNumber("--requests", values.requests, true), variantsFile: values.variants }),
);
process.env.WRANGLER_SEND_METRICS = "false";
const variants = variantsFile === undefined ? undefined : await buildVariantBundles(variantsFile);
const variantNames = [...(variants?.bundles.keys() ?? [])];

/** Each Worker by its column; `ratewall again` is a second process of the same code: the noise between two processes. */
const workers: Array<[string, WorkerKind]> = [
  ["floor", "floor"],
  ["lean", "lean"],
  ["ratewall", "ratewall"],
  ["peer", "peer"],
  ...variantNames.map((name): [string, WorkerKind] => [name, "ratewall"]),
  ["ratewall again", "ratewall"],
];
const served = new Map<string, ServedWorker>();
let workDir: string | undefined;
let stack: Stack | undefined;
try {
  workDir = await mkdtemp(join(tmpdir(), "ratewall-latency-"));
  stack = await startStack();
  const bundles = await buildBundles(join(workDir, "bundles"), "esbuild");
  const upstream = { originUrl: stack.origin.url, restUrl: stack.rest.url, token: stack.rest.token, accuracyLimit: 100 };
  for (const [name, kind] of workers) served.set(name, await serveKind(kind, variants?.bundles.get(name) ?? bundles[kind], upstream, `lat${served.size}`));
  pinToCpus(
    [...served.values()].map((worker) => worker.pid),
    [stack.redis.pid, process.pid],
  );
  const send = async (name: string, client: string) => {
    const response = await fetch(`${served.get(name)!.url}/`, { headers: { "cf-connecting-ip": client } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${name} answered ${response.status}`);
  };
  for (const [name] of workers) for (let i = 0; i < 2000; i++) await send(name, "10.254.0.1");

  const port = (url: string) => Number(new URL(url).port);
  const ports = {
    workers: Object.fromEntries([...served].map(([name, worker]) => [name, port(worker.url)])),
    shim: port(stack.rest.url),
    redis: port(stack.redis.url),
    origin: port(stack.origin.url),
  };
  const filter = [...Object.values(ports.workers), ports.shim, ports.redis, ports.origin].map((p) => `port ${p}`).join(" or ");
  const capture = await startCapture(`tcp and (${filter})`);
  // One request to each Worker in turn: whatever the machine does meanwhile, every Worker sees
  // the same share of it (blocks of requests per Worker let a drift favour one of them). The turn
  // starts one Worker later each time, so that each holds every place in it equally often: the
  // Worker after another may find the caches as that one left them.
  for (let i = 0; i < requests; i++) {
    for (let k = 0; k < workers.length; k++) {
      const w = (i + k) % workers.length;
      await send(workers[w]![0], `10.${w}.${i % 250}.1`);
    }
  }
  const packets = await capture.stop();

  const byWorker = timelines(packets, ports);
  const names = workers.map(([name]) => name);
  const medians = new Map(names.map((name) => [name, medianSegments(byWorker.get(name) ?? [])]));
  const at = (name: string, segment: (typeof SEGMENTS)[number]["name"]) => medians.get(name)![segment];
  const differences: Array<[string, string]> = [
    ["lean", "floor"],
    ["ratewall", "floor"],
    ["peer", "floor"],
    ["ratewall", "lean"],
    ...variantNames.map((name): [string, string] => [name, "ratewall"]),
    ["ratewall again", "ratewall"],
  ];
  process.stdout.write(
    `${table(
      ["segment (median µs)", ...names, ...differences.map(([a, b]) => `${a} − ${b}`)],
      SEGMENTS.map(({ name }) => [name, ...names.map((worker) => num(at(worker, name), 0)), ...differences.map(([a, b]) => num(at(a, name) - at(b, name), 0))]),
    )}\n\n${names.map((name) => `${name}: ${byWorker.get(name)?.length ?? 0} requests`).join(", ")}\n`,
  );
} finally {
  for (const worker of served.values()) await worker.dispose();
  await stack?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
  await variants?.remove();
}

/** Starts tcpdump on loopback and resolves once it captures; `stop()` resolves with every data packet. */
async function startCapture(filter: string): Promise<{ stop(): Promise<Packet[]> }> {
  const tcpdump = spawn("tcpdump", ["-i", "lo", "-n", "-tt", "-l", "-B", "65536", filter], { stdio: ["ignore", "pipe", "pipe"] });
  const packets: Packet[] = [];
  createInterface({ input: tcpdump.stdout }).on("line", (line) => {
    const packet = parsePacket(line);
    if (packet) packets.push(packet);
  });
  let said = "";
  await new Promise<void>((resolve, reject) => {
    const fail = (why: string) => reject(new Error(`tcpdump could not capture on lo (Debian package tcpdump, run as root): ${why}`));
    tcpdump.once("error", (error) => fail(error.message));
    tcpdump.once("exit", (code) => fail(`it exited with ${code}: ${said.trim()}`));
    tcpdump.stderr.on("data", (chunk: Buffer) => {
      said += chunk;
      if (said.includes("listening on")) resolve();
    });
  });
  return {
    async stop() {
      // Packets of the last request may still be on their way through tcpdump's buffer.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const exited = once(tcpdump, "close");
      tcpdump.kill("SIGINT");
      await exited;
      return packets;
    },
  };
}

/** workerd on CPU 1, the rest of the stack on CPU 0; nothing where taskset or a second CPU is missing. */
function pinToCpus(workerdPids: number[], restPids: number[]): void {
  if (availableParallelism() < 2) return;
  try {
    for (const pid of workerdPids) execFileSync("taskset", ["-a", "-cp", "1", String(pid)], { stdio: "ignore" });
    for (const pid of restPids) execFileSync("taskset", ["-a", "-cp", "0", String(pid)], { stdio: "ignore" });
  } catch {
    process.stderr.write("latency: taskset failed; the processes stay where the scheduler puts them\n");
  }
}
