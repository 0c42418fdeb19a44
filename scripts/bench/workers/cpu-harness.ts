/**
 * @module Bench Worker for the CPU section: the Worker under test (`./target.js`, the very bundle
 * the other sections serve, copied beside this one) together with its load and its network, in
 * one isolate. One call drives the Worker `n` times, one request at a time, calling its `fetch`
 * handler directly, and every `fetch` the Worker makes is answered at once: the REST
 * endpoint with the reply recorded for the same command (reply-key.ts), anything else as the bench
 * origin does (`200 ok`). So a round's CPU is the Worker's own code, plus, per request and per
 * fetch, a `Request`, a JSON parse and a map lookup that every Worker pays alike: no socket, no
 * HTTP parser, no second Worker. An unknown command is a 500 naming it, so that a Worker whose
 * calls changed fails loudly instead of being timed on an error path.
 *
 * Each request's `waitUntil` work (ratewall's hash of a client new to the isolate, a `count`
 * route's charge) is awaited before the next request starts: Cloudflare bills that work as the
 * request's CPU, and left to run after the round's answer it would fall outside the round's CPU
 * reading.
 *
 * Each request carries the `cf` object Miniflare gives the harness's own request (the one the real
 * stack gives a Worker), decoded from its JSON on first access as workerd decodes an incoming
 * request's `cf`: a Worker that reads it pays the decode here as in production, and one that does
 * not pays nothing.
 *
 * One at a time: requests started together would make `@upstash/redis` batch the peer's calls of
 * one tick into a pipeline, which the recorded replies do not hold (and which requests arriving
 * over HTTP one by one rarely trigger).
 *
 * `GET /?n=<count>&path=<path>&ip=<client>` answers the statuses it got and
 * the first 5xx body, e.g. `{"statuses":{"200":1200}}`.
 */
import target from "./target.js";
import { type CannedReply, replyKey } from "../lib/reply-key.ts";

/** The harness's own bindings; the Worker's are beside them and go to it as they are. */
export interface HarnessEnv {
  REST_HOST: string;
  /** The recorded replies, `{ key: CannedReply }` as JSON. */
  REPLIES: string;
}

let replies: Map<string, CannedReply> | undefined;
let restHost = "";

async function answer(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const body = await request.text();
  if (url.host !== restHost) return new Response("ok", { headers: { "content-type": "text/plain" } });
  const key = await replyKey(url.pathname, body);
  const reply = replies?.get(key);
  if (!reply) return new Response(`no recorded reply for ${key}`, { status: 500 });
  return new Response(reply.body, { status: reply.status, headers: { "content-type": reply.contentType } });
}

// Set once the Worker's module has run: a Worker that kept the real `fetch` at load time would
// reach for hosts that do not exist, and its rounds would fail rather than be timed.
globalThis.fetch = (input, init) => answer(new Request(input, init));

/**
 * `request` with a `cf` property that decodes `serialized` on first access and keeps the result,
 * as workerd's own does for the requests it receives (a `Request` built in JavaScript has none).
 */
function withCf(request: Request, serialized: string): Request {
  Object.defineProperty(request, "cf", {
    configurable: true,
    get() {
      const cf = JSON.parse(serialized) as unknown;
      Object.defineProperty(request, "cf", { value: cf });
      return cf;
    },
  });
  return request;
}

/** The Worker. */
export default {
  async fetch(request: Request, env: HarnessEnv): Promise<Response> {
    replies ??= new Map(Object.entries(JSON.parse(env.REPLIES) as Record<string, CannedReply>));
    restHost = env.REST_HOST;
    const params = new URL(request.url).searchParams;
    const n = Number(params.get("n"));
    const url = `http://bench.invalid${params.get("path") ?? "/"}`;
    const headers = { "cf-connecting-ip": params.get("ip") ?? "192.0.2.1" };
    const cf = JSON.stringify((request as { cf?: unknown }).cf ?? {});
    const statuses: Record<string, number> = {};
    let firstError: string | undefined;
    const deferred: Promise<unknown>[] = [];
    const ctx = { waitUntil: (work: Promise<unknown>) => deferred.push(work), passThroughOnException() {}, props: {} };
    for (let sent = 0; sent < n; sent++) {
      const response = await target.fetch(withCf(new Request(url, { headers }), cf), env, ctx);
      const body = await response.text();
      await Promise.all(deferred.splice(0));
      if (response.status >= 500) firstError ??= body;
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    }
    return Response.json({ statuses, firstError });
  },
};
