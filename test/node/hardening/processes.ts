/**
 * @module Raw HTTP for the hardening tests: answers as sent, and bytes no client library would
 * send. (The shim's process, RSS and the TCP relay are in scripts/local.)
 */
import { connect } from "node:net";

/** An HTTP answer as raw as the tests need it. */
export interface RawAnswer {
  status: number;
  contentType: string;
  body: string;
}

/**
 * Sends one request with fetch (no retries, no redirects) and reads the whole answer.
 *
 * @example
 * const { status, body } = await send(shim.url, "/", '["PING"]', { authorization: "Bearer t" });
 */
export async function send(
  base: string,
  path: string,
  body: string | Uint8Array | undefined,
  headers: Record<string, string> = {},
  method = "POST",
): Promise<RawAnswer> {
  const res = await fetch(`${base}${path}`, { method, body, headers, redirect: "manual" });
  return { status: res.status, contentType: res.headers.get("content-type") ?? "", body: await res.text() };
}

/**
 * Writes raw bytes on a fresh TCP connection and resolves with what came back before the server
 * closed it (or `waitMs` passed). For request lines that fetch refuses to send.
 */
export function rawHttp(url: string, bytes: string | Buffer, waitMs = 2000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let received = "";
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(received);
    };
    const timer = setTimeout(finish, waitMs);
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      if (/^HTTP\/1\.1 \d+[\s\S]*\r\n\r\n/.test(received) && /transfer-encoding: chunked/i.test(received) && received.endsWith("0\r\n\r\n")) finish();
      if (/\r\n\r\n/.test(received) && /content-length: (\d+)/i.test(received)) {
        const length = Number(/content-length: (\d+)/i.exec(received)![1]);
        if (received.length - received.indexOf("\r\n\r\n") - 4 >= length) finish();
      }
    });
    socket.once("error", finish).once("close", finish);
    socket.write(bytes);
  });
}
