/**
 * @module Section 3: the shim against direct Redis. The fixed-window decision ratewall sends
 * (captured from its limiter) is run by EVALSHA through the shim, in its own process, over
 * keep-alive HTTP, and through one direct ioredis connection, at the same concurrency, in
 * interleaved rounds.
 */
import { createHash } from "node:crypto";
import { Agent, request } from "node:http";
import { Redis } from "ioredis";
import { captureScriptCall, type ScriptCall } from "../lib/capture-script.ts";
import { closedLoop, type LoopResult } from "../lib/closed-loop.ts";
import { type BenchContext, measured, type Outcome } from "../lib/context.ts";
import { interleave } from "../lib/interleave.ts";
import { unreachable } from "../lib/scenarios.ts";
import { spawnShim } from "../../local/shim-process.ts";
import { median, pairedRatio } from "../lib/stats.ts";

/** One concurrency level. Latencies in ms. */
export interface ShimVsRedisRow {
  concurrency: number;
  shim: { rps: number; p50: number; p99: number };
  direct: { rps: number; p50: number; p99: number };
  /** shim rps / direct rps, median of per-round ratios. */
  throughputRatio: number;
  /** shim p50 − direct p50 and the same for p99, medians over rounds, ms. */
  addedP50Ms: number;
  addedP99Ms: number;
}

/** Section 3's data. */
export interface ShimVsRedisData {
  /** Which script was replayed. */
  script: string;
  secondsPerRound: number;
  rounds: number;
  rows: ShimVsRedisRow[];
}

/**
 * Compares the two paths at every concurrency level of the profile.
 *
 * @example
 * const outcome = await measureShimVsRedis(ctx);
 */
export async function measureShimVsRedis(ctx: BenchContext): Promise<Outcome<ShimVsRedisData>> {
  const { call, label } = await decisionCall(ctx);
  const shim = await spawnShim(["--redis-url", ctx.stack.redis.url, "--token", ctx.upstream.token]);
  const direct = new Redis(ctx.stack.redis.url, { lazyConnect: true });
  const { concurrency, rounds, seconds } = ctx.profile.shimVsRedis;
  const agent = new Agent({ keepAlive: true, maxSockets: Math.max(...concurrency) });
  try {
    await direct.connect();
    const sha = createHash("sha1").update(call.script).digest("hex");
    // Plain Redis refuses the allow-key-locking shebang; the shim strips it (docs/shim.md §9.4).
    const directSha = (await direct.script("LOAD", call.script.replace(/^#!lua[^\n]*\n/, ""))) as string;
    const body = JSON.stringify(["EVALSHA", sha, call.keys.length, ...call.keys, ...call.args]);
    await post(agent, shim.url, ctx.upstream.token, JSON.stringify(["SCRIPT", "LOAD", call.script]));
    const viaShim = () => post(agent, shim.url, ctx.upstream.token, body);
    const viaRedis = () => direct.evalsha(directSha, call.keys.length, ...call.keys, ...call.args);
    await viaShim();
    await viaRedis();
    const rows: ShimVsRedisRow[] = [];
    for (const c of concurrency) {
      const results = await interleave(["shim", "direct"] as const, rounds, (path, round) => {
        ctx.progress.step(`shim vs redis c=${c} round ${round + 1}/${rounds}: ${path}`);
        return closedLoop(c, seconds, path === "shim" ? viaShim : viaRedis);
      });
      rows.push(compare(c, results.shim, results.direct));
    }
    return measured({ script: label, secondsPerRound: seconds, rounds, rows });
  } finally {
    agent.destroy();
    direct.disconnect();
    await shim.stop();
  }
}

async function decisionCall(ctx: BenchContext): Promise<{ call: ScriptCall; label: string }> {
  const rule = { name: "default", algorithm: "fixed-window" as const, limit: unreachable, windowMs: 3_600_000 };
  const call = await captureScriptCall([rule], { client: "bench", scope: "", now: Date.now() }, `${ctx.keyPrefix}svr`);
  return { call, label: "ratewall's fixed-window decision (one rule), as its limiter sends it" };
}

function compare(concurrency: number, shim: LoopResult[], direct: LoopResult[]): ShimVsRedisRow {
  const pick = (results: LoopResult[]) => ({
    rps: median(results.map((r) => r.rps)),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
  });
  return {
    concurrency,
    shim: pick(shim),
    direct: pick(direct),
    throughputRatio: pairedRatio(shim.map((r) => r.rps), direct.map((r) => r.rps)),
    addedP50Ms: median(shim.map((r, i) => r.p50 - direct[i]!.p50)),
    addedP99Ms: median(shim.map((r, i) => r.p99 - direct[i]!.p99)),
  };
}

/** One POST to the shim over a keep-alive agent; rejects on a non-200 or an `error` body. */
function post(agent: Agent, url: string, token: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", agent, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`shim answered ${res.statusCode}: ${text}`))));
    });
    req.on("error", reject);
    req.end(body);
  });
}
