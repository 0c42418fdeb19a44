import { connect } from "node:net";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { startShim, type Shim } from "./index.ts";

const TOKEN = "good";
let shim: Shim;
beforeAll(async () => {
  shim = await startShim({ redisUrl: inject("redisUrl"), token: TOKEN, port: 0, maxBodyBytes: 1024 });
});
afterAll(() => shim.close());

/** A request as raw bytes; `Connection: close` on the last one makes the shim end the exchange. */
function post(path: string, body: string, extra: string[] = [], token = TOKEN): string {
  const lines = [`POST ${path} HTTP/1.1`, "Host: shim", `Authorization: Bearer ${token}`, ...extra];
  if (!extra.some((line) => /^transfer-encoding/i.test(line))) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join("\r\n")}\r\n\r\n${body}`;
}

/**
 * Writes `parts` one after the other on one connection and resolves with all it read until the
 * shim closed it; with `halfClose`, the client ends its side after the last part.
 */
function exchange(...parts: string[]): Promise<string> {
  return talk(parts, false);
}

function talk(parts: string[], halfClose: boolean, url = shim.url, pauseMs = 5): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    socket.on("data", (chunk) => (text += chunk.toString("utf8")));
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
    socket.once("connect", async () => {
      for (const part of parts) {
        socket.write(part);
        await new Promise((settle) => setTimeout(settle, pauseMs));
      }
      if (halfClose) socket.end();
    });
  });
}

/** Writes `start`, then a byte every 50 ms, and resolves with all it read once the shim closed the connection. */
function trickle(url: string, start: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let got = "";
    const drip = setInterval(() => socket.writable && socket.write("a"), 50);
    socket.on("data", (chunk) => (got += chunk.toString()));
    socket.on("close", () => {
      clearInterval(drip);
      resolve(got);
    });
    // Closed while the client still sends, the connection may end in a reset: closed all the same.
    socket.on("error", () => {});
    socket.write(start);
  });
}

/** The status lines and bodies of the responses in `text`, in order. */
function answers(text: string): Array<{ status: number; body: string }> {
  const found = [];
  let rest = text;
  while (rest.length > 0) {
    const headEnd = rest.indexOf("\r\n\r\n");
    const head = rest.slice(0, headEnd);
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
    const length = /\r\ncontent-length: (\d+)/i.exec(head);
    const chunked = /\r\ntransfer-encoding: chunked/i.test(head);
    let body: string;
    if (length) {
      body = rest.slice(headEnd + 4, headEnd + 4 + Number(length[1]));
      rest = rest.slice(headEnd + 4 + Number(length[1]));
    } else if (chunked) {
      const end = rest.indexOf("\r\n0\r\n\r\n", headEnd);
      body = rest.slice(headEnd + 4, end).replace(/^[0-9a-f]+\r\n/, "");
      rest = rest.slice(end + 7);
    } else {
      body = "";
      rest = rest.slice(headEnd + 4);
    }
    found.push({ status, body });
  }
  return found;
}

const CLOSE = ["Connection: close"];

describe("the shim's own HTTP reader", () => {
  it("Should answer requests pipelined in one write, in order", async () => {
    const text = await exchange(post("/", '["ECHO","a"]') + post("/pipeline", '[["ECHO","b"],["ECHO","c"]]') + post("/", '["ECHO","d"]', CLOSE));
    expect(answers(text)).toEqual([
      { status: 200, body: '{"result":"a"}' },
      { status: 200, body: '[{"result":"b"},{"result":"c"}]' },
      { status: 200, body: '{"result":"d"}' },
    ]);
  });

  it("Should read a head and a body that arrive a few bytes at a time", async () => {
    const request = post("/", '["ECHO","slow"]', CLOSE);
    const pieces = request.match(/[\s\S]{1,7}/g)!;
    expect(answers(await exchange(...pieces))).toEqual([{ status: 200, body: '{"result":"slow"}' }]);
  });

  it("Should hand a chunked request to node:http with what follows it, and keep the order", async () => {
    const chunked = `${post("/", "", ["Transfer-Encoding: chunked"])}8\r\n["ECHO",\r\n5\r\n"ch"]\r\n0\r\n\r\n`;
    const text = await exchange(post("/", '["ECHO","before"]') + chunked + post("/", '["ECHO","after"]', CLOSE));
    expect(answers(text)).toEqual([
      { status: 200, body: '{"result":"before"}' },
      { status: 200, body: '{"result":"ch"}' },
      { status: 200, body: '{"result":"after"}' },
    ]);
  });

  it("Should answer Expect: 100-continue with 100 before the body is sent", async () => {
    const [head, body] = post("/", '["ECHO","e"]', ["Expect: 100-continue", ...CLOSE]).split("\r\n\r\n");
    const text = await exchange(`${head}\r\n\r\n`, body!);
    expect(text.startsWith("HTTP/1.1 100 Continue\r\n\r\n")).toBe(true);
    expect(answers(text.slice("HTTP/1.1 100 Continue\r\n\r\n".length))).toEqual([{ status: 200, body: '{"result":"e"}' }]);
  });

  it("Should drop the body of a request refused for its token, and serve the next one on the connection", async () => {
    const text = await exchange(post("/", '["SET","k","v"]', [], "wrong") + post("/", '["ECHO","next"]', CLOSE));
    expect(answers(text)).toEqual([
      { status: 401, body: '{"error":"Unauthorized"}' },
      { status: 200, body: '{"result":"next"}' },
    ]);
  });

  it("Should answer 413 for a body over the limit, and close the connection only if asked", async () => {
    const text = await exchange(post("/", JSON.stringify(["ECHO", "x".repeat(2000)])) + post("/", '["ECHO","ok"]', CLOSE));
    expect(answers(text)).toEqual([
      { status: 413, body: '{"error":"ERR max request size exceeded (1024 bytes)"}' },
      { status: 200, body: '{"result":"ok"}' },
    ]);
  });

  it("Should close the connection after a request refused from its head (wrong token) when the client asked to", async () => {
    const closed = exchange(post("/", '["PING"]', CLOSE, "wrong"));
    const text = await Promise.race([closed, new Promise<string>((resolve) => setTimeout(resolve, 2_000, "still open"))]);
    expect(answers(text)).toEqual([{ status: 401, body: '{"error":"Unauthorized"}' }]);
    expect(text.slice(0, text.indexOf("\r\n\r\n"))).toMatch(/\r\nconnection: close(\r\n|$)/i);
  });

  it("Should take a body of exactly the limit and refuse one byte more", async () => {
    const sized = (bytes: number) => JSON.stringify(["ECHO", "x".repeat(bytes - 11)]);
    expect(sized(1024)).toHaveLength(1024);
    const text = await exchange(post("/", sized(1024)) + post("/", sized(1025)) + post("/", '["ECHO","ok"]', CLOSE));
    expect(answers(text).map(({ status }) => status)).toEqual([200, 413, 200]);
  });

  it("Should answer every request of a client that finished sending before the answers came, then close", async () => {
    const text = await talk([post("/", '["ECHO","1"]') + post("/", '["ECHO","2"]')], true);
    expect(answers(text)).toEqual([
      { status: 200, body: '{"result":"1"}' },
      { status: 200, body: '{"result":"2"}' },
    ]);
  });

  it.each([
    ["its head", "POST / HTTP/1.1\r\nHost: shim\r\nContent-Le"],
    ["its body", post("/", '["ECHO","cut"]').slice(0, -4)],
  ])("Should answer 400 and close when the client ends its side in the middle of %s, as node:http does", async (_, part) => {
    const text = await talk([post("/", '["ECHO","whole"]') + part], true);
    expect(answers(text)).toEqual([
      { status: 200, body: '{"result":"whole"}' },
      { status: 400, body: expect.stringContaining("ended") },
    ]);
  });

  it("Should ignore an empty line after a request when the client then ends its side (RFC 9112 §2.2)", async () => {
    const text = await talk([`${post("/", '["ECHO","crlf"]')}\r\n`], true);
    expect(answers(text)).toEqual([{ status: 200, body: '{"result":"crlf"}' }]);
  });

  it("Should ignore an empty line before a request on a kept-alive connection, with no 408 for it", async () => {
    const slow = await startShim({ redisUrl: inject("redisUrl"), token: TOKEN, port: 0, requestTimeoutMs: 300 });
    try {
      const text = await talk([`${post("/", '["ECHO","a"]')}\r\n`, "", "", post("/", '["ECHO","b"]', CLOSE)], false, slow.url, 200);
      expect(answers(text)).toEqual([
        { status: 200, body: '{"result":"a"}' },
        { status: 200, body: '{"result":"b"}' },
      ]);
    } finally {
      await slow.close();
    }
  });

  it("Should answer a request handed to node:http whose client ends its side before the answer is ready", async () => {
    const slow = await startShim({ redisUrl: inject("redisUrl"), token: TOKEN, port: 0 });
    slow.faults.set({ delayMs: 100 });
    try {
      const chunked = `${post("/", "", ["Transfer-Encoding: chunked"])}f\r\n["ECHO","half"]\r\n0\r\n\r\n`;
      expect(answers(await talk([chunked], true, slow.url))).toEqual([{ status: 200, body: '{"result":"half"}' }]);
    } finally {
      await slow.close();
    }
  });

  it("Should answer a request for node:http that follows a slow one, when the client ends its side while the first runs", async () => {
    const slow = await startShim({ redisUrl: inject("redisUrl"), token: TOKEN, port: 0 });
    slow.faults.set({ delayMs: 200 });
    try {
      const chunked = `${post("/", "", ["Transfer-Encoding: chunked"])}e\r\n["ECHO","two"]\r\n0\r\n\r\n`;
      expect(answers(await talk([post("/", '["ECHO","one"]') + chunked], true, slow.url))).toEqual([
        { status: 200, body: '{"result":"one"}' },
        { status: 200, body: '{"result":"two"}' },
      ]);
    } finally {
      await slow.close();
    }
  });

  it("Should answer every pipelined request, in order, to a client that reads slowly", async () => {
    const redis = new Redis(inject("redisUrl"));
    const value = "v".repeat(256 * 1024);
    await redis.set("fast-http:big", value);
    redis.disconnect();
    const requests = Array.from({ length: 40 }, (_, i) => post("/", JSON.stringify(i % 2 ? ["GET", "fast-http:big"] : ["ECHO", String(i)]))).join("");
    const { hostname, port } = new URL(shim.url);
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(`${requests}${post("/", '["ECHO","last"]', CLOSE)}`);
        socket.pause(); // About 5 MB of answers wait for the client while it does not read.
        setTimeout(() => socket.resume(), 300);
      });
      let received = "";
      socket.on("data", (chunk) => (received += chunk.toString("utf8")));
      socket.on("end", () => resolve(received));
      socket.on("error", reject);
    });
    const expected = Array.from({ length: 40 }, (_, i) => ({ status: 200, body: `{"result":"${i % 2 ? value : String(i)}"}` }));
    const got = answers(text);
    expect(got.length).toBe(41);
    expect(got.slice(0, 40).every((answer, i) => answer.status === 200 && answer.body === expected[i]!.body)).toBe(true);
    expect(got[40]).toEqual({ status: 200, body: '{"result":"last"}' });
  });

  it("Should leave a malformed head to node:http, which answers 400 and closes", async () => {
    const text = await exchange("POST / HTTP/1.1\r\nHost: shim\r\nBad Header: x\r\n\r\n");
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  });

  it.each([
    // node:http's parser words the reason (here, of a request line with a space in its target).
    ["a request line node:http cannot read", "GET /echo/a b HTTP/1.1\r\nHost: shim\r\n\r\n", 400, /^\{"error":"ERR malformed request: [^"]+"\}$/],
    [
      "a head over 16 KB",
      `GET /echo/${"a".repeat(20_000)} HTTP/1.1\r\nHost: shim\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`,
      431,
      "ERR request header fields too large",
    ],
    [
      "chunk extensions over 16 KB",
      `${post("/", "", ["Transfer-Encoding: chunked"])}8;${"a".repeat(20_000)}\r\n["PING"]\r\n0\r\n\r\n`,
      413,
      "ERR chunk extensions too large",
    ],
    [
      "an expectation other than 100-continue",
      post("/", '["PING"]', ["Expect: something-else", ...CLOSE]),
      417,
      'ERR unsupported Expect "something-else": only 100-continue is understood',
    ],
    [
      "an HTTP/1.1 request without Host, which RFC 9112 §3.2 answers with 400",
      `GET /ping?_token=${TOKEN} HTTP/1.1\r\n\r\n`,
      400,
      "ERR missing Host header (an HTTP/1.1 request needs one, RFC 9112 §3.2)",
    ],
    [
      "a CONNECT, which node:http hands to no request handler",
      "CONNECT redis.example:6379 HTTP/1.1\r\nHost: redis.example:6379\r\n\r\n",
      405,
      "ERR method CONNECT is not allowed",
    ],
  ])("Should refuse %s with a JSON error, and close", async (_, request, status, error) => {
    const text = await exchange(request);
    expect(answers(text)).toEqual([{ status, body: typeof error === "string" ? JSON.stringify({ error }) : expect.stringMatching(error) }]);
    expect(text.slice(0, text.indexOf("\r\n\r\n"))).toMatch(/\r\nconnection: close(\r\n|$)/i);
  });

  it("Should survive clients that send a CONNECT and reset the connection before its 405 is written", async () => {
    const { hostname, port } = new URL(shim.url);
    for (let i = 0; i < 100; i++) {
      const socket = connect(Number(port), hostname);
      socket.on("error", () => {});
      await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
      socket.write("CONNECT redis.example:6379 HTTP/1.1\r\nHost: redis.example:6379\r\n\r\n");
      socket.resetAndDestroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    const res = await fetch(`${shim.url}/ping`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(await res.text()).toBe('{"result":"PONG"}');
  });

  it("Should answer 408 and close a handed-over connection whose client stalls mid-request", async () => {
    const slow = await startShim({ redisUrl: inject("redisUrl"), token: TOKEN, port: 0, requestTimeoutMs: 300 });
    try {
      const text = await talk([`${post("/", "", ["Transfer-Encoding: chunked"])}8\r\n["PI`], false, slow.url);
      expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(answers(text)).toEqual([{ status: 408, body: '{"error":"ERR the request did not arrive in time"}' }]);
    } finally {
      await slow.close();
    }
  });

  it("Should answer a head that ends its lines with a bare LF with node:http's 400, not wait for a CRLF", async () => {
    expect(await exchange(`GET /ping?_token=${TOKEN} HTTP/1.1\nHost: shim\n\n`)).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  });

  it.each([
    ["a head", "POST / HTTP/1.1\r\nHost: shim\r\nX-Slow: "],
    ["a body", post("/", "x".repeat(100)).slice(0, -99)],
  ])(
    "Should answer 408 and close when %s trickles in past the request timeout, a byte at a time",
    async (_, start) => {
      const slow = await startShim({ redisUrl: inject("redisUrl"), token: TOKEN, port: 0, requestTimeoutMs: 300 });
      try {
        expect(await trickle(slow.url, start)).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      } finally {
        await slow.close();
      }
    },
    10_000,
  );

  it("Should close a connection whose client trickles the body of a refused request past the request timeout", async () => {
    const slow = await startShim({ redisUrl: inject("redisUrl"), token: TOKEN, port: 0, requestTimeoutMs: 300 });
    try {
      const text = await trickle(slow.url, post("/", "x".repeat(10_000), [], "wrong").slice(0, -9_999));
      expect(answers(text)).toEqual([{ status: 401, body: expect.stringContaining("Unauthorized") }]);
    } finally {
      await slow.close();
    }
  }, 10_000);

  it("Should stop reading, and close, a connection whose client keeps sending after a Connection: close answer", async () => {
    const { hostname, port } = new URL(shim.url);
    const outcome = await new Promise<string>((resolve) => {
      const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
      const chunk = Buffer.alloc(64 * 1024, "a");
      let sent = 0;
      const flood = setInterval(() => {
        if (!socket.writable) return;
        socket.write(chunk);
        sent += chunk.length;
        // 64 MB sent and still open: the shim is buffering what it will never read.
        if (sent > 64 * 1024 * 1024) resolve("still open");
      }, 1);
      socket.on("close", () => resolve("closed"));
      socket.on("error", () => resolve("closed"));
      socket.write(post("/", '["PING"]', CLOSE));
      setTimeout(() => resolve("still open"), 5_000);
      socket.once("close", () => clearInterval(flood));
    });
    expect(outcome).toBe("closed");
  }, 10_000);

  it("Should refuse to start with a request timeout that is not a whole number of milliseconds", async () => {
    await expect(startShim({ redisUrl: inject("redisUrl"), token: TOKEN, requestTimeoutMs: 0 })).rejects.toThrow(
      "requestTimeoutMs must be a whole number of milliseconds, at least 1; got 0",
    );
  });

  it("Should refuse to start with a body limit or a port that is not a whole number in range, naming it", async () => {
    await expect(startShim({ redisUrl: inject("redisUrl"), token: TOKEN, maxBodyBytes: 1.5 })).rejects.toThrow(
      "maxBodyBytes must be a whole number of bytes, at least 1; got 1.5",
    );
    await expect(startShim({ redisUrl: inject("redisUrl"), token: TOKEN, port: 70_000 })).rejects.toThrow(
      "port must be a whole number from 0 to 65535; got 70000",
    );
  });

  it("Should refuse to start with an option it does not know, naming it, where a misspelt one would be left at its default", async () => {
    await expect(startShim({ redisUrl: inject("redisUrl"), token: TOKEN, prot: 5 } as never)).rejects.toThrow(
      'startShim: unknown option "prot" (expected one of redisUrl, cluster, token, port, host, maxBodyBytes, requestTimeoutMs)',
    );
  });

  it("Should refuse to start with a Redis URL that is not redis:// or rediss://, naming the option and the value", async () => {
    await expect(startShim({ redisUrl: "127.0.0.1:6379", token: TOKEN })).rejects.toThrow(
      'startShim: redisUrl: invalid URL "127.0.0.1:6379" (expected redis://host:port or rediss://…)',
    );
    await expect(startShim({ redisUrl: "http://user:pw@127.0.0.1:6379", token: TOKEN })).rejects.toThrow('invalid URL "http://***@127.0.0.1:6379"');
  });

  it("Should send the length, the date and the keep-alive time, and close after Connection: close", async () => {
    const text = await exchange(post("/", '["PING"]', CLOSE));
    const head = text.slice(0, text.indexOf("\r\n\r\n"));
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head).toContain("\r\ncontent-length: 17\r\n");
    expect(head).toMatch(/\r\ndate: \w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT\r\n/);
    expect(head).toContain("\r\nconnection: close");
    const keepAlive = await fetch(`${shim.url}/`, { method: "POST", body: '["PING"]', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(keepAlive.headers.get("keep-alive")).toBe("timeout=60");
  });
});
