/**
 * @module The only code that connects to Redis (cluster.ts routes over it): ioredis over RESP2
 * (docs/shim.md §4.1; § numbers below are that file's), raw `Buffer` replies so that binary
 * values round-trip exactly. All
 * requests share one connection (one per master on a cluster), pipelined: the shim refuses every command that blocks or changes connection state (§13), so
 * sharing is safe. A request is executed exactly once: no offline queue, no resending of
 * in-flight commands after a reconnect (§11.5: a replay could count one request twice).
 */
import type { Writable } from "node:stream";
import { Cluster, Command as IoCommand, Redis, ReplyError } from "ioredis";
import { clusterSender, CROSSSLOT, runPipelineOnCluster, type Send, transactionSlot } from "./cluster.ts";
import type { Command, Reply } from "./protocol.ts";

/** Redis could not be reached, or the connection broke mid-command: a 5xx for the HTTP client. */
export class RedisUnavailableError extends Error {
  override readonly name = "RedisUnavailableError";
  constructor(cause: unknown) {
    super(`ERR Redis is unreachable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** A command's outcome: its reply, or the Redis error it got (a `ReplyError`). */
export type Outcome = Reply | Error;

/** The queue-time error that made Redis discard a transaction (§8). */
export class TransactionDiscardedError extends Error {
  override readonly name = "TransactionDiscardedError";
}

/** What the HTTP layer needs from Redis. */
export interface RedisLink {
  /** Runs commands in order on the shared connection, in one write; one outcome per command (§7). */
  run(commands: Command[]): Promise<Outcome[]>;
  /** MULTI, the commands, EXEC, written at once on the shared connection (§8). */
  transaction(commands: Command[]): Promise<Outcome[]>;
  /** A fresh connection for one SSE subscriber (§11.7); the caller closes it. */
  subscriber(): Redis;
  /** Redis's major version, once known (read at every connect). */
  majorVersion(): number | undefined;
  /** Resolves once connected, or once the first attempt failed (the shim then answers 5xx). */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link connectRedis}. */
export interface ConnectOptions {
  /** `redisUrl` is one node (any) of a Redis Cluster: route each command to its slot's master. */
  cluster?: boolean;
}

/** A local Redis: retry often, recover fast. */
const retryStrategy = (attempt: number) => Math.min(attempt * 50, 500);

/** What every connection to a Redis node uses, a cluster's included. */
const NODE_OPTIONS = {
  // Reject in-flight commands when the connection drops, and never resend them.
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  // Integers as digits: exact beyond 2^53, and distinguishable from bulk strings (Buffers).
  stringNumbers: true,
  connectionName: "ratewall-upstash-shim",
};

/**
 * Connects to `redisUrl` (`redis://` or `rediss://`) and keeps reconnecting in the background;
 * with `cluster`, to the Redis Cluster that node belongs to.
 *
 * @example
 * const link = connectRedis("redis://127.0.0.1:6379");
 * const [reply] = await link.run([{ name: "PING", args: [] }]); // → Buffer "PONG"
 */
export function connectRedis(redisUrl: string, options: ConnectOptions = {}): RedisLink {
  const client: Redis | Cluster = options.cluster
    ? new Cluster([seedNode(redisUrl)], {
        lazyConnect: true,
        // Not for a down cluster (`whenReady` refuses then) but for a node's first connection:
        // ioredis connects it on its first command, and would reject the ones sent meanwhile.
        enableOfflineQueue: true,
        // 0: a command whose connection closed is not sent again elsewhere (a replay could count twice).
        retryDelayOnFailover: 0,
        clusterRetryStrategy: retryStrategy,
        redisOptions: { ...NODE_OPTIONS, ...credentials(redisUrl) },
      })
    : // Fail fast while Redis is down instead of queueing (a down Redis → 5xx at once).
      new Redis(redisUrl, { ...NODE_OPTIONS, lazyConnect: true, enableOfflineQueue: false, retryStrategy });
  // The last connection error says why better than ioredis's "Stream isn't writeable…".
  let lastError: unknown;
  client.on("error", (error) => (lastError = error)); // Reported per request as 5xx; reconnection is automatic.
  let majorVersion: number | undefined;
  client.on("ready", () => {
    lastError = undefined;
    client.info("server").then(
      (info) => (majorVersion = Number(/redis_version:(\d+)/.exec(info)?.[1]) || undefined),
      () => {},
    );
  });
  const ready = client.connect().catch(() => {});
  const batch = client instanceof Redis ? batchWrites(client) : () => {};

  const send: Send = (
    command,
    via = (io) => {
      batch();
      return client.sendCommand(io);
    },
  ) =>
    // Upper-case names also keep ioredis's reply transformers (e.g. hgetall → object) away.
    (via(new IoCommand(command.name, command.args, { replyEncoding: null })) as Promise<Reply>).catch((error: unknown) => {
      if (error instanceof ReplyError) return error as Error;
      throw new RedisUnavailableError(lastError ?? error);
    });

  // All or nothing: before the ready check completes, ioredis would still write commands flagged
  // "loading" (MULTI, EXEC, PUBLISH…) and reject the others, which could run half a transaction.
  const whenReady = <T>(run: () => Promise<T>): Promise<T> =>
    client.status === "ready" ? run() : Promise.reject(new RedisUnavailableError(lastError ?? new Error(`the connection is ${client.status}`)));

  const cluster = client instanceof Cluster ? client : undefined;
  const sendOne = cluster ? clusterSender(cluster, send) : send;
  const run = (commands: Command[]) =>
    whenReady(() => (cluster ? runPipelineOnCluster(commands, sendOne) : Promise.all(commands.map((command) => send(command)))));

  return {
    ready,
    majorVersion: () => majorVersion,
    run,
    async transaction(commands) {
      const wrapped = [{ name: "MULTI", args: [] }, ...commands, { name: "EXEC", args: [] }];
      let outcomes: Outcome[];
      if (cluster) {
        const slot = transactionSlot(commands);
        if (slot === CROSSSLOT) throw new TransactionDiscardedError(CROSSSLOT);
        // ioredis's own cluster pipelines do this: one { slot } target pins every command to one connection.
        const target = { slot };
        outcomes = await whenReady(() => Promise.all(wrapped.map((command) => send(command, (io) => cluster.sendCommand(io, undefined, target)))));
      } else {
        outcomes = await run(wrapped);
      }
      const exec = outcomes.at(-1);
      if (exec instanceof Error) {
        // EXECABORT: report it with the first queue-time error, the more informative of the two (§8).
        const first = outcomes.slice(1, -1).find((outcome) => outcome instanceof Error) as Error | undefined;
        throw new TransactionDiscardedError(first ? `${exec.message} First error: ${first.message}` : exec.message);
      }
      return exec as Outcome[];
    },
    // Plain PUBLISH reaches every node of a cluster, so one connection to the seed node hears it all.
    subscriber: () =>
      client instanceof Redis
        ? client.duplicate({ lazyConnect: false, enableOfflineQueue: true })
        : new Redis(redisUrl, { ...NODE_OPTIONS, enableOfflineQueue: true, retryStrategy }),
    close: async () => {
      client.disconnect();
    },
  };
}

/**
 * Coalesces the commands written to one connection in one turn of the event loop into one socket
 * write: the first command corks the socket, and it is uncorked once the turn's I/O callbacks
 * have run (`setImmediate`), so that every HTTP request read in that turn shares one syscall.
 * Unlike ioredis's `enableAutoPipelining` (which only batches its named command methods, not
 * `sendCommand`), each command keeps its own promise, order and error, as if written alone.
 */
function batchWrites(client: Redis): () => void {
  let corked = false;
  return () => {
    const stream = (client as unknown as { stream?: Writable }).stream;
    if (corked || client.status !== "ready" || !stream) return;
    corked = true;
    stream.cork();
    setImmediate(() => {
      corked = false;
      stream.uncork();
    });
  };
}

/** The seed node of a cluster URL; the credentials go to every node instead ({@link credentials}). */
function seedNode(redisUrl: string): { host: string; port: number } {
  const url = new URL(redisUrl);
  return { host: url.hostname.replace(/^\[|\]$/g, ""), port: Number(url.port || 6379) };
}

/** The user, password and TLS of a `redis://` or `rediss://` URL, for each node of a cluster. */
function credentials(redisUrl: string) {
  const url = new URL(redisUrl);
  return {
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(url.protocol === "rediss:" ? { tls: {} } : {}),
  };
}
