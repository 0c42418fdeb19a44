/**
 * @module The only code that connects to Redis, over RESP2 (docs/shim.md §4.1; § numbers below
 * are that file's): one pipelined connection (redis-connection.ts) to a single Redis, or ioredis
 * to a Redis Cluster (one connection per master; cluster.ts routes over it). Raw `Buffer` replies,
 * so that binary values round-trip exactly. All requests share the connection: the shim refuses
 * every command that blocks or changes connection state (§13), so sharing is safe. A request is
 * executed exactly once: no offline queue, no resending of in-flight commands after a reconnect
 * (§11.5: a replay could count one request twice).
 */
import { Cluster, Command as IoCommand, Redis, ReplyError } from "ioredis";
import { maskCredentials } from "./cli-options.ts";
import { clusterSender, CROSSSLOT, readyMaster, runPipelineOnCluster, type Send, transactionSlot, wholeDatabaseInTransaction } from "./cluster.ts";
import type { Command, Reply } from "./protocol.ts";
import { RedisConnection, RedisUnavailableError } from "./redis-connection.ts";

export { RedisUnavailableError } from "./redis-connection.ts";

/** A command's outcome: its reply, or the Redis error it got. */
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

const CONNECTION_NAME = "ratewall-upstash-shim";

/** What every ioredis connection (a cluster's nodes, a subscriber) uses. */
const NODE_OPTIONS = {
  // Reject in-flight commands when the connection drops, and never resend them.
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  // Integers as digits: exact beyond 2^53, and distinguishable from bulk strings (Buffers).
  stringNumbers: true,
  connectionName: CONNECTION_NAME,
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
  // ioredis's subscriber mode (SUBSCRIBE's push replies) serves the SSE routes.
  const subscriber = () => new Redis(redisUrl, { ...NODE_OPTIONS, enableOfflineQueue: true, retryStrategy });
  if (options.cluster) return connectCluster(redisUrl, subscriber);
  const connection = new RedisConnection(redisUrl, { name: CONNECTION_NAME, retryDelayMs: retryStrategy });
  // SCRIPT KILL and FUNCTION KILL must overtake the busy script they kill, which holds the shared
  // connection until it ends: they go on a connection of their own, opened now (a busy Redis
  // answers a new connection's SELECT with BUSY).
  const control = new RedisConnection(redisUrl, { name: `${CONNECTION_NAME}-control`, retryDelayMs: retryStrategy });
  // On the control connection while it is ready, and the shared one is too or the request is
  // kills only: a request's commands are then all written or all refused, and a kill still
  // reaches a busy Redis whose shared connection cannot reconnect (its SELECT answered BUSY).
  // With the control connection down a kill goes as it always did.
  // One synchronous loop: every command of a request is refused, or every one is written.
  const send = (commands: Command[], onControl = false) =>
    Promise.all(commands.map((command) => (onControl && isKill(command) ? control : connection).send(command)));
  const run = (commands: Command[]) => send(commands, control.isReady && (connection.isReady || commands.every(isKill)));
  return {
    ready: Promise.all([connection.ready, control.ready]).then(() => {}),
    majorVersion: () => connection.majorVersion,
    run,
    async transaction(commands) {
      return execOutcome(await send(inMulti(commands)));
    },
    subscriber,
    close: async () => {
      connection.close();
      control.close();
    },
  };
}

/** SCRIPT KILL or FUNCTION KILL: stops the script that keeps the shared connection busy. */
function isKill(command: Command): boolean {
  return (command.name === "SCRIPT" || command.name === "FUNCTION") && String(command.args[0] ?? "").toUpperCase() === "KILL";
}

/** A transaction's commands as sent: MULTI, the commands, EXEC (§8). */
function inMulti(commands: Command[]): Command[] {
  return [{ name: "MULTI", args: [] }, ...commands, { name: "EXEC", args: [] }];
}

/** The outcomes of {@link inMulti}'s commands: EXEC's, or the error that discarded the transaction (§8). */
function execOutcome(outcomes: Outcome[]): Outcome[] {
  const exec = outcomes.at(-1);
  if (exec instanceof Error) {
    // EXECABORT: report it with the first queue-time error, the more informative of the two (§8).
    const first = outcomes.slice(1, -1).find((outcome) => outcome instanceof Error) as Error | undefined;
    throw new TransactionDiscardedError(first ? `${exec.message} First error: ${first.message}` : exec.message);
  }
  return exec as Outcome[];
}

/**
 * ioredis (5.x) reads CLUSTER SLOTS on a duplicate of a node's connection, our `stringNumbers`
 * included, so each range's bounds arrive as strings, and its `for (slot = start; slot <= end; …)`
 * compares them as text: a range such as "5461"–"10922" is never mapped. Its slots then went to a
 * random master until a MOVED taught the owner, so a transaction there was discarded (MOVED while
 * queueing) and its keys failed while an unrelated master was down. The duplicate that reads the
 * slots gets numbers; no other reply goes through it.
 */
function readSlotsAsNumbers(cluster: Cluster): void {
  type SlotReader = { getInfoFromNode(redis: Redis | undefined, callback: (error?: Error) => void): void };
  const reader = cluster as unknown as SlotReader;
  if (typeof reader.getInfoFromNode !== "function") throw new Error("ioredis's Cluster no longer reads slots through getInfoFromNode: see readSlotsAsNumbers");
  const getInfoFromNode = reader.getInfoFromNode.bind(cluster);
  reader.getInfoFromNode = (redis, callback) => {
    const numeric = redis && Object.create(redis, { duplicate: { value: (override: object) => redis.duplicate({ ...override, stringNumbers: false }) } });
    getInfoFromNode(numeric, callback);
  };
}

/** {@link connectRedis} for a Redis Cluster, through ioredis's slot routing. */
function connectCluster(redisUrl: string, subscriber: () => Redis): RedisLink {
  const cluster = new Cluster([seedNode(redisUrl)], {
    lazyConnect: true,
    // Not for a down cluster (`whenReady` refuses then) but for a node's first connection:
    // ioredis connects it on its first command, and would reject the ones sent meanwhile.
    enableOfflineQueue: true,
    // 0: a command whose connection closed is not sent again elsewhere (a replay could count twice).
    retryDelayOnFailover: 0,
    clusterRetryStrategy: retryStrategy,
    redisOptions: { ...NODE_OPTIONS, ...credentials(redisUrl) },
  });
  readSlotsAsNumbers(cluster);
  // The last connection error says why better than ioredis's "Stream isn't writeable…".
  let lastError: unknown;
  // A Redis that is no cluster's node answers every slots query so: no retry can help.
  let standalone: Error | undefined;
  cluster.on("error", (error: Error & { lastNodeError?: Error }) => {
    // Reported per request as 5xx; reconnection is automatic. A node's own error (NOAUTH, say)
    // says why better than "Failed to refresh slots cache".
    lastError = error.lastNodeError ?? error;
    if (/cluster support disabled/.test(String(error.lastNodeError?.message))) standalone = error.lastNodeError;
  });
  let majorVersion: number | undefined;
  cluster.on("ready", () => {
    lastError = undefined;
    cluster.info("server").then(
      (info) => (majorVersion = Number(/redis_version:(\d+)/.exec(info)?.[1]) || undefined),
      () => {},
    );
  });
  const ready = cluster.connect().catch(() => {
    if (!standalone) return;
    cluster.disconnect();
    throw new Error(`${maskCredentials(redisUrl)} is a Redis without cluster mode (${standalone.message}): drop --cluster (cluster: true)`);
  });

  const send: Send = (command, via = (io) => cluster.sendCommand(io)) =>
    // Upper-case names also keep ioredis's reply transformers (e.g. hgetall → object) away.
    (via(new IoCommand(command.name, command.args, { replyEncoding: null })) as Promise<Reply>).catch((error: unknown) => {
      if (error instanceof ReplyError) return error as Error;
      throw new RedisUnavailableError(lastError ?? error);
    });

  // All or nothing: before the ready check completes, ioredis would still write commands flagged
  // "loading" (MULTI, EXEC, PUBLISH…) and reject the others, which could run half a transaction.
  const whenReady = <T>(run: () => Promise<T>): Promise<T> =>
    cluster.status === "ready" ? run() : Promise.reject(new RedisUnavailableError(lastError ?? new Error(`the connection is ${cluster.status}`)));
  const sendOne = clusterSender(cluster, send);

  return {
    ready,
    majorVersion: () => majorVersion,
    run: (commands) => whenReady(() => runPipelineOnCluster(commands, sendOne)),
    async transaction(commands) {
      const slot = transactionSlot(commands);
      if (slot === CROSSSLOT) throw new TransactionDiscardedError(CROSSSLOT);
      const wholeDatabase = wholeDatabaseInTransaction(commands);
      if (wholeDatabase) throw new TransactionDiscardedError(wholeDatabase);
      // Every command on the one connection of the slot's master, written in one go once it is ready.
      return execOutcome(
        await whenReady(async () => {
          const master = await readyMaster(cluster, slot);
          return Promise.all(inMulti(commands).map((command) => send(command, (io) => master.sendCommand(io))));
        }),
      );
    },
    subscriber,
    close: async () => {
      cluster.disconnect();
    },
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
