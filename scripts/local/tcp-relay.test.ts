import { createServer, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { startTcpRelay } from "./tcp-relay.ts";

const REQUEST = "GET / HTTP/1.1\r\nHost: relay.test\r\n\r\n";

/** An HTTP server that holds each answer until the test releases it, and says when a client has gone. */
async function holdingServer() {
  const held: ServerResponse[] = [];
  const arrivals: Array<() => void> = [];
  const gone: Array<() => void> = [];
  const server = createServer((req, res) => {
    req.resume();
    res.once("close", () => gone.shift()?.());
    held.push(res);
    for (const check of arrivals.splice(0)) check();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    held,
    /** Resolves once the server holds `n` requests. */
    holding: (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (held.length >= n ? resolve() : void arrivals.push(check));
        check();
      }),
    /** Resolves once a held request's connection closes. */
    clientGone: () => new Promise<void>((resolve) => gone.push(resolve)),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Sends REQUEST through `url`'s port; `answer` resolves with every byte received once the answer's body ("hello") is in. */
function send(url: string): { socket: Socket; answer: Promise<Buffer> } {
  const socket = connect(Number(new URL(url).port), "127.0.0.1", () => socket.write(REQUEST));
  const answer = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      const received = Buffer.concat(chunks);
      if (received.toString().endsWith("\r\n\r\nhello")) resolve(received);
    });
    socket.once("error", reject);
  });
  return { socket, answer };
}

describe("the TCP relay", () => {
  it("Should count every byte each way, and the requests waiting for an answer, at their peak too", async () => {
    const server = await holdingServer();
    const relay = await startTcpRelay(server.url);
    const clients = [send(relay.url), send(relay.url)];
    try {
      await server.holding(2);
      expect({ inFlight: relay.inFlight(), peak: relay.peak() }).toEqual({ inFlight: 2, peak: 2 });
      for (const res of server.held) res.end("hello");
      const answers = await Promise.all(clients.map((client) => client.answer));
      expect(relay.bytes).toEqual({ up: 2 * Buffer.byteLength(REQUEST), down: answers[0]!.length + answers[1]!.length });
      expect({ inFlight: relay.inFlight(), peak: relay.peak() }).toEqual({ inFlight: 0, peak: 2 });
      relay.resetPeak();
      relay.resetBytes();
      expect({ peak: relay.peak(), bytes: relay.bytes }).toEqual({ peak: 0, bytes: { up: 0, down: 0 } });
    } finally {
      for (const client of clients) client.socket.destroy();
      await relay.close();
      await server.close();
    }
  });

  it("Should stop counting a request in flight when its client goes away unanswered", async () => {
    const server = await holdingServer();
    const relay = await startTcpRelay(server.url);
    const client = send(relay.url);
    try {
      await server.holding(1);
      expect(relay.inFlight()).toBe(1);
      const gone = server.clientGone();
      client.socket.destroy();
      await gone;
      expect(relay.inFlight()).toBe(0);
    } finally {
      client.socket.destroy();
      await relay.close();
      await server.close();
    }
  });
});
