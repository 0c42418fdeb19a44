/**
 * @module PURE: the commands the shim refuses (docs/shim.md §13; § numbers below are that
 * file's). Upstash REST has no blocking,
 * transaction-control or connection commands; on top of that, the shim shares one Redis connection
 * between all requests, so anything that changes that connection's state, or reaches outside the
 * database (server admin, replication, persistence, other databases), would leak between clients.
 */
import type { Arg, Command } from "./protocol.ts";

const REFUSED = new Set([
  // Connection state (§13): PING and ECHO are the only connection commands allowed.
  "AUTH",
  "HELLO",
  "SELECT",
  "RESET",
  "CLIENT",
  "QUIT",
  "READONLY",
  "READWRITE",
  "ASKING",
  // Transactions: WATCH/UNWATCH/DISCARD are unsupported over REST; MULTI/EXEC only via /multi-exec (§8).
  "MULTI",
  "EXEC",
  "WATCH",
  "UNWATCH",
  "DISCARD",
  // Pub/Sub listening: only through the SSE routes (§11.7).
  "SUBSCRIBE",
  "PSUBSCRIBE",
  "SSUBSCRIBE",
  "UNSUBSCRIBE",
  "PUNSUBSCRIBE",
  "SUNSUBSCRIBE",
  "MONITOR",
  // Blocking commands (§13).
  "BLPOP",
  "BRPOP",
  "BRPOPLPUSH",
  "BLMOVE",
  "BLMPOP",
  "BZPOPMIN",
  "BZPOPMAX",
  "BZMPOP",
  "WAIT",
  "WAITAOF",
  // Server administration, replication, persistence, cluster (§13).
  "DEBUG",
  "CONFIG",
  "SHUTDOWN",
  "MODULE",
  "ACL",
  "SLAVEOF",
  "REPLICAOF",
  "SYNC",
  "PSYNC",
  "REPLCONF",
  "CLUSTER",
  "FAILOVER",
  "SAVE",
  "BGSAVE",
  "BGREWRITEAOF",
  "MIGRATE",
  "SWAPDB",
  "MOVE",
  // The rest of what Redis flags `admin` (server-wide diagnostics and HyperLogLog internals).
  "SLOWLOG",
  "LATENCY",
  "PFDEBUG",
  "PFSELFTEST",
]);

/** Stream reads block when given a BLOCK option (§13). */
const BLOCK_OPTION = new Set(["XREAD", "XREADGROUP"]);

/** The operands each XREAD / XREADGROUP option takes (Redis's t_stream.c, xreadCommand). */
const OPERANDS: ReadonlyMap<string, number> = new Map([
  ["COUNT", 1],
  ["GROUP", 2],
  ["NOACK", 0],
]);

/**
 * Whether an XREAD or XREADGROUP has the BLOCK option. Options stand before `STREAMS`, in any
 * order, and are read as Redis reads them, operands skipped: a group, consumer or count named
 * "block" or "streams" is no option. A word Redis does not know is stepped over (Redis refuses
 * the command anyway), so the scan errs towards finding BLOCK.
 */
function hasBlockOption(args: readonly Arg[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const word = String(args[i]).toUpperCase();
    if (word === "STREAMS") return false;
    if (word === "BLOCK") return true;
    i += OPERANDS.get(word) ?? 0;
  }
  return false;
}

/**
 * The error a refused command gets, in Upstash's wording (§13), or `undefined` when the command
 * may run. `SCRIPT DEBUG` is refused too: it switches the connection into the Lua debugger; so is `COPY … DB`.
 *
 * @example
 * refusal({ name: "SELECT", args: ["1"] }); // → "ERR Command is not available: 'SELECT'"
 */
export function refusal(command: Command): string | undefined {
  const { name, args } = command;
  const blocks =
    REFUSED.has(name) ||
    (BLOCK_OPTION.has(name) && hasBlockOption(args)) ||
    (name === "SCRIPT" && String(args[0] ?? "").toUpperCase() === "DEBUG") ||
    // COPY … DB <n> writes into another database, as MOVE does.
    (name === "COPY" && args.slice(2).some((arg) => String(arg).toUpperCase() === "DB"));
  return blocks ? `ERR Command is not available: '${name}'` : undefined;
}
