/**
 * @module `npx tsx scripts/perf/workerd-cpu.ts [--n 5000] [--rounds 5] [--only a,b] [--profile NAME]`:
 * CPU µs per request of each contender's own code in workerd (scripts/perf/workerd-driver.ts),
 * read from the workerd process's CPU time (/proc, so other load on the machine does not count),
 * from interleaved rounds, and each one's ratio to pass-through, the peer and the floor (medians of
 * per-round ratios). `--profile NAME`
 * takes a CPU profile of one round of NAME over workerd's inspector instead, written to /tmp.
 */
import { readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { WRANGLER_ESBUILD_OPTIONS } from "../deploy/esbuild-options.ts";
import { Miniflare } from "miniflare";
import WebSocket from "ws";

const { values } = parseArgs({
  options: { n: { type: "string", default: "5000" }, rounds: { type: "string", default: "5" }, profile: { type: "string" }, only: { type: "string" } },
});
const n = Number(values.n);
const rounds = Number(values.rounds);
if (!Number.isInteger(n) || n < 1) throw new Error(`--n must be a positive integer, got ${values.n}`);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);

const bundled = await build({
  ...WRANGLER_ESBUILD_OPTIONS,
  entryPoints: ["scripts/perf/workerd-driver.ts"],
  minify: !values.profile,
  write: false,
  alias: { "ratewall-app": "./src/app.ts" },
});
const script = bundled.outputFiles[0]!.text;
const inspectorPort = values.profile ? 9239 : undefined;
const mf = new Miniflare({ modules: true, script, compatibilityDate: "2026-04-20", ...(inspectorPort ? { inspectorPort } : {}) });
try {
  await mf.ready;
  const workerd = workerdPid();
  const run = async (worker: string, count: number) => {
    const started = cpuSeconds(workerd);
    const res = await mf.dispatchFetch(`http://driver/?worker=${worker}&n=${count}`);
    const statuses = await res.text();
    if (res.status !== 200) throw new Error(`${worker}: ${statuses}`);
    return { us: ((cpuSeconds(workerd) - started) * 1e6) / count, statuses };
  };
  const names = ["pass-through", "floor", "ratewall-1", "ratewall-1-analytics", "ratewall-2", "ratewall-blocked", "peer"].filter(
    (name) => !values.only || values.only.split(",").includes(name),
  );
  for (const name of names) process.stdout.write(`${name} warm-up: ${(await run(name, n)).statuses}\n`);
  if (values.profile) {
    const cpu = await profileRound(inspectorPort!, () => run(values.profile!, n));
    await writeFile(`/tmp/workerd-${values.profile}.cpuprofile`, JSON.stringify(cpu));
    process.stdout.write(`wrote /tmp/workerd-${values.profile}.cpuprofile\n`);
  } else {
    const samples = new Map<string, number[]>(names.map((name) => [name, []]));
    for (let round = 0; round < rounds; round++) for (const name of names) samples.get(name)!.push((await run(name, n)).us);
    const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
    // Ratios are medians of per-round ratios: rounds next to each other share the machine's load.
    const paired = (name: string, base: string) =>
      samples.has(base) ? median(samples.get(name)!.map((us, round) => us / samples.get(base)![round]!)).toFixed(2) : "–";
    for (const [name, list] of samples) {
      process.stdout.write(
        `${name.padEnd(22)} ${median(list).toFixed(1).padStart(7)} µs/request (rounds ${Math.min(...list).toFixed(1)}–${Math.max(...list).toFixed(1)})  ${paired(name, "pass-through")}× pass-through  ${paired(name, "peer")}× peer  ${paired(name, "floor")}× floor\n`,
      );
    }
  }
} finally {
  await mf.dispose();
}

/** A CPU profile of `work`, over workerd's inspector (Chrome DevTools Protocol). */
async function profileRound(port: number, work: () => Promise<unknown>): Promise<unknown> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as Array<{ webSocketDebuggerUrl: string; title?: string }>;
  const target = targets.find((t) => !t.title?.startsWith("core:")) ?? targets[0]!;
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  let id = 0;
  const pending = new Map<number, (result: unknown) => void>();
  ws.on("message", (data: Buffer) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  });
  const send = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      pending.set(++id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 50 });
  await send("Profiler.start");
  await work();
  const { profile } = (await send("Profiler.stop")) as { profile: unknown };
  ws.close();
  return profile;
}

/** The workerd process Miniflare started: our child whose command is workerd. */
function workerdPid(): number {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === process.pid && stat.includes("(workerd)")) return Number(entry);
    } catch {
      // The process ended meanwhile.
    }
  }
  throw new Error("workerd's process was not found among this process's children");
}

/** User + system CPU seconds a process has used (Linux: /proc/<pid>/stat, 100 ticks a second). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
