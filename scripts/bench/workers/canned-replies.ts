/**
 * @module Bench Worker for the CPU section: the outbound service of a Worker under test, in the
 * same workerd process. It answers every fetch at once, with no socket: requests to the REST
 * endpoint's host with the reply recorded for the same command (reply-key.ts), anything else as
 * the bench origin does (`200 ok`). An unknown command is a 500 naming it, so that a Worker whose
 * calls changed fails loudly instead of being timed on an error path.
 */
import { type CannedReply, replyKey } from "../lib/reply-key.ts";

/** Bindings: the REST endpoint's host and the recorded replies, `{ key: CannedReply }` as JSON. */
export interface CannedEnv {
  REST_HOST: string;
  REPLIES: string;
}

let replies: Map<string, CannedReply> | undefined;

/** The Worker. */
export default {
  async fetch(request: Request, env: CannedEnv): Promise<Response> {
    const url = new URL(request.url);
    const body = await request.text();
    if (url.host !== env.REST_HOST) return new Response("ok", { headers: { "content-type": "text/plain" } });
    replies ??= new Map(Object.entries(JSON.parse(env.REPLIES) as Record<string, CannedReply>));
    const key = await replyKey(url.pathname, body);
    const reply = replies.get(key);
    if (!reply) return new Response(`no recorded reply for ${key}`, { status: 500 });
    return new Response(reply.body, { status: reply.status, headers: { "content-type": reply.contentType } });
  },
};
