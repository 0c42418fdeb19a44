/**
 * @module I/O: the shim's one connection to a single Redis node, in RESP2 (resp.ts). Commands
 * are pipelined: every command sent in one turn of the event loop goes out in one socket write,
 * and replies settle them in order. While the connection is not ready, commands are refused at
 * once (no offline queue); when it drops, the commands in flight are rejected and never sent
 * again (docs/shim.md §11.5: a replay could count one request twice), and it reconnects in the
 * background.
 */
import { isIP, connect as tcpConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import type { Command, Reply } from "./protocol.ts";
import { encodeCommand, RedisReplyError, ReplyDecoder } from "./resp.ts";

/** Redis could not be reached, or the connection broke mid-command: a 5xx for the HTTP client. */
export class RedisUnavailableError extends Error {
  override readonly name = "RedisUnavailableError";
  constructor(cause: unknown) {
    super(`ERR Redis is unreachable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** Options of {@link RedisConnection}. */
export interface RedisConnectionOptions {
  /** `CLIENT SETNAME`, so that `CLIENT LIST` on the server tells the shim's connection apart. */
  name: string;
  /** How long to wait before reconnection attempt `attempt` (1, 2, …). */
  retryDelayMs: (attempt: number) => number;
  /** A connection attempt that has not finished its handshake by then is abandoned. @default 10000 */
  connectTimeoutMs?: number;
  /**
   * A Redis that sends nothing for this long while commands wait (stopped, partitioned, or stuck
   * mid-reply) is dropped: those commands fail (503) and the connection is made again, instead of
   * holding every request, and its memory, until it answers. A script that runs longer is dropped
   * the same way, its effects applied all the same: Redis does not stop a script at
   * `busy-reply-threshold` (5 s by default), it answers others BUSY and `SCRIPT KILL` stops it.
   * @default 30000
   */
  replyTimeoutMs?: number;
}

type Settle = (reply: Reply | RedisUnavailableError) => void;

/**
 * One pipelined RESP2 connection to `redis://[user:password@]host[:port][/db]` (or `rediss://`,
 * over TLS) that reconnects by itself. A command's promise resolves with its reply, a
 * {@link RedisReplyError} for an error reply, and rejects with {@link RedisUnavailableError}
 * when it could not run.
 *
 * @example
 * const redis = new RedisConnection("redis://127.0.0.1:6379", { name: "shim", retryDelayMs: () => 100 });
 * await redis.ready;
 * const pong = await redis.send({ name: "PING", args: [] }); // → Buffer "PONG"
 */
export class RedisConnection {
  /** Resolves once the first attempt to connect succeeded or failed. */
  readonly ready: Promise<void>;
  /** Redis's major version, read at every connect. */
  majorVersion: number | undefined;
  #status: "connecting" | "ready" | "closed" = "connecting";
  #lastError: unknown;
  #socket: Socket | undefined;
  #attempt = 0;
  #retry: NodeJS.Timeout | undefined;
  /** Settles the commands written and not yet answered, oldest first from `#head`. */
  #pending: Settle[] = [];
  #head = 0;
  /** What the next write sends (see {@link encodeCommand}). */
  #out: Array<string | Buffer> = [""];
  #flushing = false;
  /** When Redis last sent a byte, or when a command began to wait on a quiet connection. */
  #heardAt = 0;
  #replyTimer: NodeJS.Timeout | undefined;
  readonly #decoder = new ReplyDecoder((reply) => this.#settle(reply));
  readonly #url: URL;
  readonly #replyTimeoutMs: number;
  #attempted!: () => void;

  constructor(
    url: string,
    private readonly options: RedisConnectionOptions,
  ) {
    this.#url = new URL(url);
    this.#replyTimeoutMs = options.replyTimeoutMs ?? 30_000;
    if (this.#url.search) throw new Error(`Redis URL options are not supported: "${this.#url.search}" in ${url.replace(/\/\/[^@/]*@/, "//***@")}`);
    this.ready = new Promise((resolve) => (this.#attempted = resolve));
    this.#connect();
  }

  /** Whether {@link send} writes now (rather than refusing at once). */
  get isReady(): boolean {
    return this.#status === "ready";
  }

  /** Runs one command; see the class for what the promise settles with. */
  send(command: Command): Promise<Reply> {
    if (this.#status !== "ready") {
      return Promise.reject(new RedisUnavailableError(this.#lastError ?? new Error(`the connection is ${this.#status}`)));
    }
    return this.#write(command);
  }

  /** Closes the connection for good; commands in flight are rejected. */
  close(): void {
    this.#status = "closed";
    clearTimeout(this.#retry);
    clearTimeout(this.#replyTimer);
    this.#socket?.destroy();
  }

  #write(command: Command): Promise<Reply> {
    // The silence that counts starts when something waits (Redis owed nothing before).
    if (this.#pending.length === this.#head) this.#heardAt = Date.now();
    this.#replyTimer ??= setTimeout(() => this.#checkReplies(), this.#replyTimeoutMs);
    encodeCommand(command, this.#out);
    if (!this.#flushing) {
      this.#flushing = true;
      // After this turn's I/O callbacks: every HTTP request read in this turn shares one write.
      setImmediate(() => this.#flush());
    }
    return new Promise((resolve, reject) => {
      this.#pending.push((reply) => (reply instanceof RedisUnavailableError ? reject(reply) : resolve(reply)));
    });
  }

  #flush(): void {
    const out = this.#out;
    this.#out = [""];
    this.#flushing = false;
    const socket = this.#socket;
    if (!socket || socket.destroyed) return; // The close handler has rejected these commands.
    if (out.length === 1) return void socket.write(out[0]!);
    socket.cork();
    for (const chunk of out) if (chunk.length > 0) socket.write(chunk);
    socket.uncork();
  }

  /**
   * Drops a connection on which commands have waited {@link RedisConnectionOptions.replyTimeoutMs}
   * without a byte from Redis. Timed on what Redis sends only: a socket timeout also counts the
   * shim's writes, and on a busy shim, new commands would keep a stopped Redis's connection alive.
   */
  #checkReplies(): void {
    this.#replyTimer = undefined;
    if (this.#pending.length === this.#head) return;
    const silent = Date.now() - this.#heardAt;
    const ms = this.#replyTimeoutMs;
    if (silent < ms) this.#replyTimer = setTimeout(() => this.#checkReplies(), ms - silent);
    else this.#socket?.destroy(new Error(`Redis answered nothing for ${ms} ms while commands waited`));
  }

  #settle(reply: Reply | RedisUnavailableError): void {
    const settle = this.#pending[this.#head];
    if (!settle) throw new Error("Redis sent a reply to no command");
    this.#pending[this.#head++] = undefined as unknown as Settle;
    if (this.#head === this.#pending.length) {
      this.#pending = [];
      this.#head = 0;
    }
    settle(reply);
  }

  #connect(): void {
    const { hostname, port, protocol } = this.#url;
    const host = hostname.replace(/^\[|\]$/g, "");
    const options = { host, port: Number(port || 6379) };
    const socket = protocol === "rediss:" ? tlsConnect({ ...options, servername: isIP(host) ? undefined : host }) : tcpConnect(options);
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.setKeepAlive(true);
    socket.setTimeout(this.options.connectTimeoutMs ?? 10_000, () => socket.destroy(new Error(`connect ETIMEDOUT ${host}:${options.port}`)));
    socket.on("data", (chunk: Buffer) => {
      this.#heardAt = Date.now();
      try {
        this.#decoder.push(chunk);
      } catch (error) {
        socket.destroy(error as Error);
      }
    });
    socket.on("error", (error) => (this.#lastError = error));
    socket.once("close", () => this.#onClose(socket));
    socket.once(protocol === "rediss:" ? "secureConnect" : "connect", () => this.#handshake(socket));
  }

  /** AUTH, SELECT, CLIENT SETNAME and INFO, pipelined; the connection is ready once they answered. */
  async #handshake(socket: Socket): Promise<void> {
    const { username, password, pathname } = this.#url;
    const db = pathname.slice(1);
    const auth = password ? [...(username ? [decodeURIComponent(username)] : []), decodeURIComponent(password)] : [];
    const replies = [...(auth.length > 0 ? [this.#write({ name: "AUTH", args: auth })] : []), ...(db ? [this.#write({ name: "SELECT", args: [db] })] : [])];
    // A server that refuses CLIENT (an ACL) still serves; only the name is lost.
    const named = this.#write({ name: "CLIENT", args: ["SETNAME", this.options.name] });
    const info = this.#write({ name: "INFO", args: [] });
    try {
      // Awaited together: one rejected alone (the socket closed) would leave the others unhandled.
      const [answered, , inform] = await Promise.all([Promise.all(replies), named, info]);
      const failed = answered.find((reply) => reply instanceof RedisReplyError);
      if (failed) throw failed;
      // A Redis busy with a script answers INFO with BUSY: the version read before stands.
      const text = inform instanceof RedisReplyError ? undefined : String(inform);
      if (text !== undefined && /^loading:1/m.test(text)) throw new Error("Redis is loading its dataset");
      if (socket !== this.#socket || this.#status === "closed") return;
      if (text !== undefined) this.majorVersion = Number(/redis_version:(\d+)/.exec(text)?.[1]) || undefined;
      socket.setTimeout(0);
      this.#status = "ready";
      this.#attempt = 0;
      this.#lastError = undefined;
      this.#attempted();
    } catch (error) {
      // A RedisUnavailableError means the socket closed; its handler already reconnects.
      if (!(error instanceof RedisUnavailableError)) socket.destroy(error as Error);
    }
  }

  #onClose(socket: Socket): void {
    if (socket !== this.#socket) return;
    this.#socket = undefined;
    clearTimeout(this.#replyTimer);
    this.#replyTimer = undefined;
    this.#decoder.reset();
    this.#out = [""];
    const pending = this.#pending.slice(this.#head);
    this.#pending = [];
    this.#head = 0;
    const gone = new RedisUnavailableError(this.#lastError ?? new Error("the connection closed"));
    for (const settle of pending) settle(gone);
    this.#attempted();
    if (this.#status === "closed") return;
    this.#status = "connecting";
    this.#retry = setTimeout(() => this.#connect(), this.options.retryDelayMs(++this.#attempt));
  }
}
