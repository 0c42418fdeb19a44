/**
 * @module How the shim runs commands on a Redis Cluster (README, "Redis Cluster"): each keyed
 * command goes to the master of its slot (ioredis routes it), a transaction stays on one slot, and
 * the keyless commands whose meaning is the whole database (SCRIPT LOAD, DBSIZE, KEYS, SCAN,
 * FLUSHDB…) reach every master, their replies combined into the one a single Redis would give.
 */
import { once } from "node:events";
import { Command as IoCommand, type Cluster, type Redis } from "ioredis";
import type { Arg, Command, Reply } from "./protocol.ts";
import type { Outcome } from "./redis.ts";
import { RedisUnavailableError } from "./redis-connection.ts";

/** Writes one command through a given connection (or the cluster's router) and settles it. */
export type Send = (command: Command, via?: (command: IoCommand) => unknown) => Promise<Outcome>;

/** Redis's own reply to a command or transaction whose keys are in more than one slot. */
export const CROSSSLOT = "CROSSSLOT Keys in request don't hash to the same slot";

/**
 * The cluster slot of a key: CRC16 (XMODEM) of the key, or of its `{hash tag}` when it has a
 * non-empty one, modulo 16384 (the Redis Cluster specification).
 *
 * @example
 * keySlot("foo"); // → 12182
 * keySlot("rate:fixed:{203.0.113.7}") === keySlot("203.0.113.7"); // → true
 */
export function keySlot(key: Arg): number {
  let bytes = typeof key === "string" ? Buffer.from(key) : key;
  const open = bytes.indexOf(0x7b);
  const close = open === -1 ? -1 : bytes.indexOf(0x7d, open + 1);
  if (close > open + 1) bytes = bytes.subarray(open + 1, close);
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc & 16383;
}

/**
 * The key positions of a command, as Redis's command table places them (none for unknown or
 * malformed ones: Redis words those errors); `undefined` where a position is past the end of the
 * arguments, in a command too short for its keys.
 */
function keyPositions(command: Command): Array<Arg | undefined> {
  try {
    return new IoCommand(command.name, [...command.args]).getKeys() as Array<Arg | undefined>;
  } catch {
    return [];
  }
}

/** The keys a command holds ({@link keyPositions} without those past its end). */
function keysOf(command: Command): Arg[] {
  return keyPositions(command).filter((key) => key !== undefined);
}

/**
 * The one slot of a transaction's keys (`undefined` when it has none), or {@link CROSSSLOT}
 * when they span several, which Redis would answer at EXEC.
 */
export function transactionSlot(commands: Command[]): number | undefined | typeof CROSSSLOT {
  const slots = new Set(commands.flatMap((command) => keysOf(command).map(keySlot)));
  return slots.size > 1 ? CROSSSLOT : slots.values().next().value;
}

/**
 * Runs a pipeline on a cluster: commands of different slots go out at once, each to its slot's
 * master; a command waits for the one before it in its slot (a MOVED or ASK redirection resends
 * a command, which could otherwise overtake the next one); a keyless command waits for everything
 * before it, and everything after it waits for it. Commands on disjoint slots cannot observe each
 * other's order, so the results are those of the pipeline run in order.
 */
export function runPipelineOnCluster(commands: Command[], sendOne: (command: Command) => Promise<Outcome>): Promise<Outcome[]> {
  let barrier: Promise<unknown> = Promise.resolve();
  let sinceBarrier: Array<Promise<unknown>> = [];
  const lastInSlot = new Map<number, Promise<unknown>>();
  const outcomes = commands.map((command) => {
    const [key] = keysOf(command);
    if (key !== undefined) {
      const slot = keySlot(key);
      const outcome = (lastInSlot.get(slot) ?? barrier).then(() => sendOne(command));
      const settled = outcome.catch(() => {});
      lastInSlot.set(slot, settled);
      sinceBarrier.push(settled);
      return outcome;
    }
    const outcome = Promise.all([barrier, ...sinceBarrier]).then(() => sendOne(command));
    barrier = outcome.catch(() => {});
    sinceBarrier = [];
    lastInSlot.clear();
    return outcome;
  });
  return Promise.all(outcomes);
}

type Combine = (replies: Reply[]) => Reply;
const first: Combine = (replies) => replies[0]!;
const EVERY_MASTER: Record<string, Combine> = {
  // The same effect everywhere, so EVALSHA/FCALL work on whichever master holds the keys.
  "SCRIPT LOAD": first,
  "SCRIPT FLUSH": first,
  "FUNCTION LOAD": first,
  "FUNCTION DELETE": first,
  "FUNCTION FLUSH": first,
  FLUSHDB: first,
  FLUSHALL: first,
  // A digest exists when EVALSHA would find it wherever it runs: on every master.
  "SCRIPT EXISTS": (replies) => (replies[0] as Reply[]).map((_, i) => (replies.every((reply) => String((reply as Reply[])[i]) === "1") ? "1" : "0")),
  DBSIZE: (replies) => String(replies.reduce((sum, reply) => sum + BigInt(String(reply)), 0n)),
  KEYS: (replies) => replies.flatMap((reply) => reply as Reply[]),
};

/** How the masters' replies to a whole-database command are combined; `undefined` for any other command. */
function combinerOf(command: Command): Combine | undefined {
  const sub = command.args.length > 0 ? `${command.name} ${String(command.args[0]).toUpperCase()}` : command.name;
  return EVERY_MASTER[sub] ?? EVERY_MASTER[command.name];
}

/**
 * Why a transaction cannot run on a cluster because of a whole-database command in it (one
 * transaction runs on one master), or `undefined` when it holds none.
 *
 * @example
 * wholeDatabaseInTransaction([{ name: "FLUSHDB", args: [] }]); // → "ERR FLUSHDB acts on every master …"
 */
export function wholeDatabaseInTransaction(commands: Command[]): string | undefined {
  const found = commands.find((command) => command.name === "SCAN" || combinerOf(command) !== undefined);
  return found && `ERR ${found.name} acts on every master of the cluster, which one transaction cannot: send it outside /multi-exec`;
}

/**
 * The cluster's `sendOne`: whole-database commands reach every master (see {@link EVERY_MASTER});
 * SCAN walks the masters one after the other behind one cursor; a command too short for its keys
 * goes to one master for Redis's error; the rest goes through ioredis's routing (keyless ones to a
 * random master).
 */
export function clusterSender(cluster: Cluster, send: Send): (command: Command) => Promise<Outcome> {
  // A stable order, so that a SCAN cursor names the same master on the next call.
  const masters = () => everyMaster(cluster).sort((a, b) => nodeName(a).localeCompare(nodeName(b)));
  return async (command) => {
    if (command.name === "SCAN") return scan(command, masters(), send);
    const keys = keyPositions(command);
    if (keys.includes(undefined)) {
      // Not through ioredis's routing, which would write the missing key as an argument and throw:
      // to the master of the keys it has (any master if none), which refuses it in Redis's words.
      const [key] = keysOf(command);
      const master = await readyMaster(cluster, key === undefined ? undefined : keySlot(key));
      return send(command, (io) => master.sendCommand(io));
    }
    const combine = combinerOf(command);
    if (!combine) return send(command);
    const outcomes = await Promise.all(masters().map((master) => send(command, (io) => master.sendCommand(io))));
    return outcomes.find((outcome) => outcome instanceof Error) ?? combine(outcomes as Reply[]);
  };
}

/**
 * The connected master of every slot. ioredis drops a master whose connection closed from
 * `nodes("master")` while its slots still name it: a count, a key listing or a flush over the
 * rest would then answer for part of the database as if it were all of it, so it fails instead,
 * as a command on one of those slots does.
 */
function everyMaster(cluster: Cluster): Redis[] {
  const connected = new Map(cluster.nodes("master").map((node) => [nodeName(node), node]));
  for (let slot = 0; slot < 16384; slot++) {
    const owner = cluster.slots[slot]?.[0];
    if (owner === undefined || !connected.has(owner)) {
      throw new RedisUnavailableError(`no connected master serves slot ${slot}${owner === undefined ? "" : ` (its master ${owner} is down)`}`);
    }
  }
  return [...connected.values()];
}

/** How long a transaction waits for its master's first connection before it answers 503. */
const NODE_READY_MS = 5_000;

/**
 * The master of `slot` (any master for a keyless transaction), once its connection is ready. A
 * transaction must not start on a connection still in its handshake: ioredis then writes the
 * commands Redis allows while loading (MULTI, EXEC) at once and queues the others until ready
 * (ioredis Redis.sendCommand, `writable`), so EXEC would answer `[]` and the commands would run
 * after it, outside the transaction.
 */
export async function readyMaster(cluster: Cluster, slot: number | undefined): Promise<Redis> {
  const owner = slot === undefined ? undefined : cluster.slots[slot]?.[0];
  const node = cluster.nodes("master").find((master) => owner === undefined || nodeName(master) === owner);
  if (!node) throw new RedisUnavailableError(`no connected master serves slot ${slot}`);
  if (node.status === "ready") return node;
  if (node.status === "wait") node.connect().catch(() => {}); // Its failure is the wait's below.
  try {
    await once(node, "ready", { signal: AbortSignal.timeout(NODE_READY_MS) });
  } catch (error) {
    throw new RedisUnavailableError(error);
  }
  return node;
}

/** A SCAN cursor as Redis reads it: an unsigned 64-bit integer, in digits after an optional sign. */
const CURSOR = /^(?:[+-]?\d+)?$/;
const MAX_CURSOR = 2n ** 64n - 1n;

function nodeName(node: Redis): string {
  return `${node.options.host}:${node.options.port}`;
}

/**
 * SCAN over every master: the shim's cursor is `masterCursor × masters + masterIndex`, so `0`
 * starts at the first master and the scan ends with `0` after the last. The cursor is read as
 * Redis reads it (`strtoul`: digits after an optional sign, `-1` wrapping to 2^64 − 1, `""` as 0);
 * any other goes to Redis as it is, for Redis's own error (`BigInt` would also read `" 3"`,
 * `0x10` and numbers past 64 bits).
 */
async function scan(command: Command, masters: Redis[], send: Send): Promise<Outcome> {
  const [cursorArg = "", ...rest] = command.args;
  const text = String(cursorArg);
  const read = CURSOR.test(text) ? BigInt(text) : undefined;
  const cursor = read !== undefined && read < 0n ? read + MAX_CURSOR + 1n : read;
  if (cursor === undefined || cursor < 0n || cursor > MAX_CURSOR || masters.length === 0) return send(command);
  const count = BigInt(masters.length);
  const index = cursor % count;
  const master = masters[Number(index)]!;
  const reply = await send({ name: "SCAN", args: [String(cursor / count), ...rest] }, (io) => master.sendCommand(io));
  if (reply instanceof Error) return reply;
  const [next, keys] = reply as [Buffer, Reply];
  const masterNext = BigInt(next.toString());
  const combined = masterNext !== 0n ? masterNext * count + index : index + 1n < count ? index + 1n : 0n;
  return [Buffer.from(String(combined)), keys];
}
