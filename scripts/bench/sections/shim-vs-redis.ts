/**
 * @module Section 3: the shim, loaded as users load it. One decision ratewall sends (captured from
 * its limiter) is replayed by EVALSHA, the same command for all three paths, on the same
 * redis-server: through the ratewall shim and through the peer's Node shim
 * (`@humanwhocodes/upstash-redis-server`), each in its own process and loaded by autocannon over
 * keep-alive HTTP, and directly by `redis-benchmark`. Paths are interleaved round by round at
 * each concurrency; ratios are medians of per-round ratios.
 */
import { createHash } from "node:crypto";
import { Redis } from "ioredis";
import { captureScriptCall, type ScriptCall } from "../lib/capture-script.ts";
import { type BenchContext, measured, type Outcome } from "../lib/context.ts";
import { interleave } from "../lib/interleave.ts";
import { redisBenchmark } from "../lib/redis-benchmark.ts";
import { unreachable } from "../lib/scenarios.ts";
import { spawnPeerShim } from "../lib/spawn-peer-shim.ts";
import { type ShimProcess, spawnShim } from "../../local/shim-process.ts";
import { median, pairedRatio, ratioRange } from "../lib/stats.ts";

/** The three ways to run the decision. */
export type ShimPath = "ratewall-shim" | "peer-shim" | "direct";

/** Medians over rounds for one path. Latencies in ms. */
export interface ShimPathResult {
  rps: number;
  p50: number;
  p99: number;
}

/** One concurrency level. */
export interface ShimVsRedisRow {
  concurrency: number;
  paths: Record<ShimPath, ShimPathResult>;
  /** ratewall shim rps / peer shim rps, median of per-round ratios, and the per-round range. */
  overPeer: number;
  overPeerRange: [number, number];
  /** ratewall shim rps / direct Redis rps, the same way. */
  overDirect: number;
  overDirectRange: [number, number];
  /** ratewall shim p50 − direct p50, median over rounds, ms: what the shim adds. */
  addedP50Ms: number;
  /** The same for the peer's shim. */
  peerAddedP50Ms: number;
}

/** Section 3's data. */
export interface ShimVsRedisData {
  /** Which script was replayed. */
  script: string;
  secondsPerRound: number;
  warmupSeconds: number;
  /** redis-benchmark's requests per round (it runs by count, not by time). */
  redisRequests: number;
  rounds: number;
  rows: ShimVsRedisRow[];
}

const paths: readonly ShimPath[] = ["ratewall-shim", "peer-shim", "direct"];

/**
 * Measures the three paths at every concurrency level of the profile.
 *
 * @example
 * const outcome = await measureShimVsRedis(ctx);
 */
export async function measureShimVsRedis(ctx: BenchContext): Promise<Outcome<ShimVsRedisData>> {
  const { call, label } = await decisionCall(ctx);
  // Plain Redis refuses the allow-key-locking shebang, which ratewall's shim strips (docs/shim.md
  // §9.4); every path runs the script without it, so all three send byte for byte the same EVALSHA.
  const script = call.script.replace(/^#!lua[^\n]*\n/, "");
  const sha = createHash("sha1").update(script).digest("hex");
  const command = ["EVALSHA", sha, String(call.keys.length), ...call.keys, ...call.args];
  const { token } = ctx.upstream;
  const shims: Partial<Record<ShimPath, Pick<ShimProcess, "url" | "pid" | "stop">>> = {};
  try {
    // With --cpu-profiles, Node writes the shim's profile (CPU.<date>.<pid>….cpuprofile) as it exits on stop()'s SIGTERM.
    const nodeFlags = ctx.cpuProfilesDir ? ["--cpu-prof", `--cpu-prof-dir=${ctx.cpuProfilesDir}`] : [];
    shims["ratewall-shim"] = await spawnShim(["--redis-url", ctx.stack.redis.url, "--token", token], {}, { nodeFlags });
    shims["peer-shim"] = await spawnPeerShim(ctx.stack.redis.url, token);
    const expected = await loadScript(ctx.stack.redis.url, script, command);
    for (const path of ["ratewall-shim", "peer-shim"] as const) {
      await post(shims[path]!.url, token, ["SCRIPT", "LOAD", script]);
      const answer = (await post(shims[path]!.url, token, command)) as { result?: unknown };
      if (!Array.isArray(answer.result) || answer.result.length !== expected.length) {
        throw new Error(`${path} answered the EVALSHA with ${JSON.stringify(answer)}, Redis with ${JSON.stringify(expected)}`);
      }
    }
    const { concurrency, rounds, seconds, redisRequests, warmupSeconds } = ctx.profile.shimVsRedis;
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const body = JSON.stringify(command);
    const rows: ShimVsRedisRow[] = [];
    for (const c of concurrency) {
      const measure = async (path: ShimPath, time = seconds): Promise<ShimPathResult> => {
        if (path === "direct") return redisBenchmark(ctx.stack.redis.url, c, redisRequests, command);
        const result = await ctx.load.run({ url: shims[path]!.url, connections: c, seconds: time, method: "POST", body, headers });
        if (result.errors || (result.statuses["200"] ?? 0) !== result.requests) {
          throw new Error(`${path} answered ${JSON.stringify(result.statuses)} with ${result.errors} errors at c=${c}`);
        }
        return result;
      };
      // Unrecorded warm-up of each path at this concurrency: a shim's JIT takes seconds (its
      // first second at c=1 runs at a third of its later rate).
      for (const path of paths) {
        ctx.progress.step(`shim c=${c} warm-up: ${path}`);
        await measure(path, warmupSeconds);
      }
      const results = await interleave(paths, rounds, (path, round) => {
        ctx.progress.step(`shim c=${c} round ${round + 1}/${rounds}: ${path}`);
        return measure(path);
      });
      rows.push(compare(c, results));
    }
    return measured({ script: label, secondsPerRound: seconds, warmupSeconds, redisRequests, rounds, rows });
  } finally {
    for (const shim of Object.values(shims)) await shim.stop();
  }
}

async function decisionCall(ctx: BenchContext): Promise<{ call: ScriptCall; label: string }> {
  const rule = { name: "default", algorithm: "fixed-window" as const, limit: unreachable, windowMs: 3_600_000 };
  const call = await captureScriptCall([rule], { client: "bench", scope: "", now: Date.now() }, `${ctx.keyPrefix}svr`);
  return { call, label: "ratewall's fixed-window decision (one rule), as its limiter sends it" };
}

/** Loads `script` into Redis directly and runs `command` once; resolves with Redis's answer. */
async function loadScript(redisUrl: string, script: string, command: string[]): Promise<unknown[]> {
  const redis = new Redis(redisUrl, { lazyConnect: true });
  try {
    await redis.connect();
    await redis.script("LOAD", script);
    return (await redis.call(command[0]!, ...command.slice(1))) as unknown[];
  } finally {
    redis.disconnect();
  }
}

function compare(concurrency: number, results: Record<ShimPath, ShimPathResult[]>): ShimVsRedisRow {
  const pick = (rounds: ShimPathResult[]): ShimPathResult => ({
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
  });
  const rps = (path: ShimPath) => results[path].map((r) => r.rps);
  return {
    concurrency,
    paths: { "ratewall-shim": pick(results["ratewall-shim"]), "peer-shim": pick(results["peer-shim"]), direct: pick(results.direct) },
    overPeer: pairedRatio(rps("ratewall-shim"), rps("peer-shim")),
    overPeerRange: ratioRange(rps("ratewall-shim"), rps("peer-shim")),
    overDirect: pairedRatio(rps("ratewall-shim"), rps("direct")),
    overDirectRange: ratioRange(rps("ratewall-shim"), rps("direct")),
    addedP50Ms: added(results["ratewall-shim"], results.direct),
    peerAddedP50Ms: added(results["peer-shim"], results.direct),
  };
}

/** A shim's p50 − direct Redis's p50, round by round, median. */
function added(shim: ShimPathResult[], direct: ShimPathResult[]): number {
  return median(shim.map((r, i) => r.p50 - direct[i]!.p50));
}

/** One POST to a shim; rejects on a non-200. */
async function post(url: string, token: string, command: string[]): Promise<unknown> {
  const answer = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: JSON.stringify(command) });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`${url} answered ${answer.status}: ${text}`);
  return JSON.parse(text);
}
