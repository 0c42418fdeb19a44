/**
 * @module An HTTP relay in front of the REST endpoint that keeps the last reply per command
 * (reply-key.ts): a Worker sent through it once shows the bench the exact replies, in the exact
 * shape, that its client library and scripts expect, to be replayed in-process by the CPU
 * section.
 */
import { createServer } from "node:http";
import { type CannedReply, replyKey } from "./reply-key.ts";

/** A running relay. */
export interface RecordingRelay {
  url: string;
  /** The replies since the last `reset()`, by key; the last one wins. */
  readonly replies: Record<string, CannedReply>;
  /** Requests relayed since the start. */
  readonly requests: number;
  reset(): void;
  close(): Promise<void>;
}

/**
 * Starts a relay on a free loopback port that forwards every request to `targetUrl`.
 *
 * @example
 * const relay = await startRecordingRelay(stack.rest.url);
 */
export async function startRecordingRelay(targetUrl: string): Promise<RecordingRelay> {
  let replies: Record<string, CannedReply> = {};
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      try {
        const body = Buffer.concat(chunks).toString("utf8");
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== "host" && name !== "content-length")) as Record<
          string,
          string
        >;
        const answer = await fetch(new URL(req.url ?? "/", targetUrl), { method: req.method, headers, body });
        const reply = { status: answer.status, contentType: answer.headers.get("content-type") ?? "application/json", body: await answer.text() };
        replies[await replyKey(new URL(req.url ?? "/", targetUrl).pathname, body)] = reply;
        res.writeHead(reply.status, { "content-type": reply.contentType });
        res.end(reply.body);
      } catch (error) {
        res.writeHead(502).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    get replies() {
      return replies;
    },
    get requests() {
      return requests;
    },
    reset() {
      replies = {};
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
