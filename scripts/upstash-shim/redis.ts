/**
 * @module The only code that talks to Redis: ioredis over RESP2 (upstash-rest.md §4.1), raw
 * `Buffer` replies so that binary values round-trip exactly. All requests share one connection,
 * pipelined: the shim refuses every command that blocks or changes connection state (§13), so
 * sharing is safe. A request is executed exactly once: no offline queue, no resending of
 * in-flight commands after a reconnect (§11.5: a replay could count one request twice).
 */
import { Command as IoCommand, Redis, ReplyError } from "ioredis";
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

/**
 * Connects to `redisUrl` (`redis://` or `rediss://`) and keeps reconnecting in the background.
 *
 * @example
 * const link = connectRedis("redis://127.0.0.1:6379");
 * const [reply] = await link.run([{ name: "PING", args: [] }]); // → Buffer "PONG"
 */
export function connectRedis(redisUrl: string): RedisLink {
  const options = {
    lazyConnect: true,
    // Fail fast while Redis is down instead of queueing (a down Redis → 5xx at once).
    enableOfflineQueue: false,
    // Reject in-flight commands when the connection drops, and never resend them.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    // Integers as digits: exact beyond 2^53, and distinguishable from bulk strings (Buffers).
    stringNumbers: true,
    connectionName: "ratewall-upstash-shim",
    retryStrategy: (attempt: number) => Math.min(attempt * 50, 500), // A local Redis: retry often, recover fast.
  };
  const redis = new Redis(redisUrl, options);
  // The last connection error says why better than ioredis's "Stream isn't writeable…".
  let lastError: unknown;
  redis.on("error", (error) => (lastError = error)); // Reported per request as 5xx; reconnection is automatic.
  let majorVersion: number | undefined;
  redis.on("ready", () => {
    lastError = undefined;
    redis.info("server").then((info) => (majorVersion = Number(/redis_version:(\d+)/.exec(info)?.[1]) || undefined), () => {});
  });
  const ready = redis.connect().catch(() => {});

  const send = (command: Command): Promise<Outcome> =>
    // Upper-case names also keep ioredis's reply transformers (e.g. hgetall → object) away.
    (redis.sendCommand(new IoCommand(command.name, command.args, { replyEncoding: null })) as Promise<Reply>).catch(
      (error: unknown) => {
        if (error instanceof ReplyError) return error as Error;
        throw new RedisUnavailableError(lastError ?? error);
      },
    );

  // All or nothing: before the ready check completes, ioredis would still write commands flagged
  // "loading" (MULTI, EXEC, PUBLISH…) and reject the others, which could run half a transaction.
  const sendAll = (commands: Command[]): Promise<Outcome[]> => {
    if (redis.status !== "ready") {
      return Promise.reject(new RedisUnavailableError(lastError ?? new Error(`the connection is ${redis.status}`)));
    }
    return Promise.all(commands.map(send));
  };

  return {
    ready,
    majorVersion: () => majorVersion,
    run: sendAll,
    async transaction(commands) {
      const outcomes = await sendAll([{ name: "MULTI", args: [] }, ...commands, { name: "EXEC", args: [] }]);
      const exec = outcomes.at(-1);
      if (exec instanceof Error) {
        // EXECABORT: report it with the first queue-time error, the more informative of the two (§8).
        const first = outcomes.slice(1, -1).find((outcome) => outcome instanceof Error) as Error | undefined;
        throw new TransactionDiscardedError(first ? `${exec.message} First error: ${first.message}` : exec.message);
      }
      return exec as Outcome[];
    },
    subscriber: () => redis.duplicate({ lazyConnect: false, enableOfflineQueue: true }),
    close: async () => {
      redis.disconnect();
    },
  };
}
