/**
 * @module The Worker that scripts/perf/workerd-cpu.ts runs in workerd: it holds every contender
 * (pass-through, floor, ratewall, the peer) and, per call, drives one of them `n` times with
 * Redis and the origin answered in-process at once (the global `fetch` is replaced), so that a
 * call's duration is the contender's own CPU. `GET /?worker=<name>&n=<count>`.
 */
import passThrough from "../bench/workers/pass-through.ts";
import floor from "../bench/workers/floor.ts";
import peer from "../bench/workers/upstash-peer.ts";
// Resolved by workerd-cpu.ts's bundler to src/app.ts (typed in ./modules.d.ts): the app's
// own types need the Workers' globals, which the scripts' type-check does not load.
import { createApp } from "ratewall-app";

const REDIS = "http://redis.invalid";
const ORIGIN = "http://origin.invalid";
const NOW_RESET = () => Date.now() + 60_000;

/** What the fake Redis answers: per caller, the reply that admits (or refuses) the request. */
function redisReply(body: string, pipeline: boolean, refuse: boolean): string {
  const command = JSON.parse(body) as unknown[];
  const one = (entry: unknown[]): unknown => {
    const name = String(entry[0]).toLowerCase();
    if (name === "ping") return "PONG";
    // ratewall's reply layout (src/limiter/reply.ts): verdict, group, list TTL, then 4 per rule.
    if (entry.length > 2 && String(entry[2]) !== "" && typeof entry[3] === "string" && entry[3].startsWith("rate:list:")) {
      const rules = entry[0] === "evalsha" ? (entry.length - 3 - Number(entry[2]) - 3) / 5 : 1;
      return refuse
        ? [0, 1, 0, 0, 0, NOW_RESET(), 60_000]
        : [1, 1, 0, ...Array.from({ length: Math.max(1, Math.round(rules)) }, () => [1, 99, NOW_RESET(), 0]).flat()];
    }
    return [1, 100]; // @upstash/ratelimit's fixed window: [used, limit]
  };
  return JSON.stringify(pipeline ? (command as unknown[][]).map((entry) => ({ result: one(entry) })) : { result: one(command) });
}

let refuse = false;
const realFetch = globalThis.fetch;
globalThis.fetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
  const request = input instanceof Request && !init ? input : new Request(input, init);
  if (request.url.startsWith(REDIS))
    return new Response(redisReply(await request.text(), request.url.endsWith("/pipeline"), refuse), { headers: { "content-type": "application/json" } });
  if (request.url.startsWith(ORIGIN)) return new Response("ok");
  return realFetch(input, init);
};

const common = { UPSTASH_REDIS_REST_URL: REDIS, UPSTASH_REDIS_REST_TOKEN: "t".repeat(32), ORIGIN_URL: ORIGIN };
const ratewall = createApp();
type Handler = { fetch(request: Request, env: never, ctx: never): Response | Promise<Response> };
const contenders: Record<string, { worker: Handler; env: Record<string, unknown>; refuse?: boolean }> = {
  "pass-through": { worker: passThrough, env: common },
  floor: { worker: floor, env: common },
  "ratewall-1": { worker: ratewall, env: { ...common, RATE_LIMIT: "100/60s" } },
  "ratewall-1-analytics": { worker: ratewall, env: { ...common, RATE_LIMIT: "100/60s", RATEWALL_ANALYTICS: { writeDataPoint() {} } } },
  "ratewall-2": { worker: ratewall, env: { ...common, ROUTES: JSON.stringify([{ pattern: "*/*", rules: ["100/60s", "1000/1h"] }]) } },
  "ratewall-blocked": { worker: ratewall, env: { ...common, RATE_LIMIT: "5/60s" }, refuse: true },
  peer: { worker: peer, env: { ...common, PEER_ROUTES: JSON.stringify({ "/": [{ algorithm: "fixed-window", limit: 100, windowMs: 60_000 }] }) } },
};

export default {
  async fetch(request: Request, _env: unknown, ctx: unknown): Promise<Response> {
    const url = new URL(request.url);
    const contender = contenders[url.searchParams.get("worker") ?? ""];
    if (!contender) return new Response(`unknown worker; one of ${Object.keys(contenders).join(", ")}`, { status: 404 });
    const n = Number(url.searchParams.get("n") ?? "1000");
    refuse = contender.refuse ?? false;
    const statuses = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const response: Response = await contender.worker.fetch(
        new Request("https://api.example.com/v1/users?page=2", { headers: { "cf-connecting-ip": "203.0.113.7", accept: "*/*" } }),
        contender.env as never,
        ctx as never,
      );
      await response.arrayBuffer();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    }
    return Response.json(Object.fromEntries(statuses));
  },
};
