/**
 * @module A client's entries, as the admin API writes them: its dynamic list entry (`allow` or
 * `deny`, optionally expiring) and its tier. Keys share the client's hash tag with its counters
 * (src/keys/build-key.ts), so the deciding script reads them in the same call, on any cluster
 * node. Entries are per client, for every route: a denied client is denied everywhere.
 */
import { RedisRestError } from "../../errors.ts";
import { buildKey } from "../../keys/build-key.ts";
import { runScript } from "../run-script.ts";
import type { ScriptRunner } from "../types.ts";
import { deleteEntry, setEntry } from "./script.ts";

/** The two lists an entry can put a client on. */
export type ListKind = "allow" | "deny";

/** Writes and removes a client's entries. */
export interface ClientEntries {
  /** Puts `client` on a list, replacing any entry; `ttlMs` omitted: until removed. */
  setList(client: string, kind: ListKind, ttlMs?: number): Promise<void>;
  /** Removes `client` from `kind`'s list; resolves false when it was not on it. */
  deleteList(client: string, kind: ListKind): Promise<boolean>;
  /** Sets `client`'s tier (a name from `TIERS`), until removed. */
  setTier(client: string, tier: string): Promise<void>;
  /** Removes `client`'s tier (it falls back to each route's default); false when it had none. */
  deleteTier(client: string): Promise<boolean>;
}

/**
 * The entries of clients under `prefix`. A list entry is written to the client's own key and to a
 * copy for each of `routeScopes` (the routes whose rules count different clients, whose scripts
 * read `<prefix>:list:{route:<scope>}:<client>`, in the route's slot), all with the same value and
 * TTL, so a retry after a partial failure converges. Any failed write rejects the whole call.
 *
 * @example
 * const entries = createClientEntries(runner, "rate", ["api"]);
 * await entries.setList("203.0.113.7", "deny", 3_600_000); // rate:list:{203.0.113.7} and rate:list:{route:api}:203.0.113.7
 */
export function createClientEntries(runner: ScriptRunner, prefix: string, routeScopes: readonly string[] = []): ClientEntries {
  const key = (tag: "list" | "tier", client: string) => buildKey({ prefix, tag, client, scope: "" });
  const lists = (client: string) => [key("list", client), ...routeScopes.map((scope) => buildKey({ prefix, tag: "list", client, scope, hashTag: "route" }))];
  const set = async (entry: string, value: string, ttlMs?: number) => {
    expectReply(await runScript(runner, setEntry, [entry], [value, ttlMs === undefined ? "" : String(ttlMs)]), (reply) => reply === "OK");
  };
  const remove = async (entry: string, only: string) =>
    expectReply(await runScript(runner, deleteEntry, [entry], [only]), (reply) => reply === 0 || reply === 1) === 1;
  return {
    setList: async (client, kind, ttlMs) => {
      await every(lists(client).map((entry) => set(entry, kind, ttlMs)));
    },
    deleteList: async (client, kind) => (await every(lists(client).map((entry) => remove(entry, kind)))).some(Boolean),
    setTier: (client, tier) => set(key("tier", client), tier),
    deleteTier: (client) => remove(key("tier", client), ""),
  };
}

/** Waits for every write (each key may sit on another cluster node), then throws the first failure. */
async function every<T>(writes: Promise<T>[]): Promise<T[]> {
  const results = await Promise.allSettled(writes);
  const failed = results.find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
  return results.map((result) => (result as PromiseFulfilledResult<T>).value);
}

function expectReply(reply: unknown, ok: (reply: unknown) => boolean): unknown {
  if (!ok(reply)) throw new RedisRestError("reply", "evalsha", `unexpected entry reply ${JSON.stringify(reply).slice(0, 200)}`);
  return reply;
}
