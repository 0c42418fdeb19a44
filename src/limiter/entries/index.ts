/**
 * @module A client's entries, as the admin API writes them: its dynamic list entry (`allow` or
 * `deny`, optionally expiring) and its tier. Keys share the client's hash tag with its counters
 * (src/keys/build-key.ts), so the deciding script reads them in the same call, on any cluster
 * node. Entries are per client, for every route that counts this client (an unlimited route makes no
 * Redis call, so it never reads them). An index of
 * the list entries lets an operator see them all, and write the copies a new multi-key route lacks.
 */
import { RedisRestError } from "../../errors.ts";
import { buildKey, checkPrefix } from "../../keys/build-key.ts";
import type { LimiterScript } from "../assemble-script.ts";
import { runScript } from "../run-script.ts";
import type { ScriptRunner } from "../types.ts";
import { deleteEntry, indexEntry, readEntry, readIndex, recordCopyRoutes, setEntry, setEntryIfAbsent, unindexEntry } from "./script.ts";

/** The two lists an entry can put a client on. */
export type ListKind = "allow" | "deny";

/** One client's dynamic list entry, as the index lists it. */
export interface ListEntry {
  client: string;
  kind: ListKind;
  /** ms until the entry expires; null when it never does. */
  ttlMs: number | null;
}

/** A page of the index: its entries, and the cursor the next page starts after (null after the last page). */
export interface ListPage {
  entries: ListEntry[];
  next: string | null;
}

/**
 * Whether `value` is a cursor {@link ClientEntries.listEntries} gave (`<expiry>:<kind>:<client>`,
 * the last entry read: its expiry in ms or `inf`, and its member of the index).
 */
export function isListCursor(value: string): boolean {
  return /^(inf|[0-9]{1,16}):(allow|deny):[!-~]{1,300}$/.test(value);
}

/** Writes, lists and removes clients' entries. */
export interface ClientEntries {
  /** Puts `client` on a list, replacing any entry; `ttlMs` omitted: until removed. Resolves the list it was on before, if any. */
  setList(client: string, kind: ListKind, ttlMs?: number): Promise<ListKind | undefined>;
  /** Removes `client` from `kind`'s list; resolves false when it was not on it. */
  deleteList(client: string, kind: ListKind): Promise<boolean>;
  /**
   * `client`'s own list entry, or undefined: for the admin API's status on an unlimited route,
   * whose requests never run a script that would read it.
   */
  readList(client: string): Promise<{ kind: ListKind; ttlMs: number | null } | undefined>;
  /**
   * Up to `count` unexpired list entries after the cursor `after` (from the start without one),
   * soonest to expire first, the unexpiring last. The cursor names a position, not an offset: an
   * entry live and unchanged throughout the paging is read once, however many others expire or change.
   */
  listEntries(after: string | undefined, count: number): Promise<ListPage>;
  /**
   * Writes the copies `client`'s list entry lacks on today's multi-key routes (one added, or one
   * that gained per-rule keys, after the entry was written); resolves how many were written.
   */
  copyEntry(client: string): Promise<number>;
  /** Sets `client`'s tier (a name from `TIERS`), until removed; resolves the tier it replaced, if any. */
  setTier(client: string, tier: string): Promise<string | undefined>;
  /** Removes `client`'s tier (it falls back to each route's default); false when it had none. */
  deleteTier(client: string): Promise<boolean>;
}

/**
 * The entries of clients under `prefix`. A list entry is written to the client's own key, then to
 * a copy for each of `routeScopes` (the routes whose rules count different clients, whose scripts
 * read `<prefix>:list:{route:<scope>}:<client>`, in the route's slot), all with the same value and
 * TTL, and to the index `<prefix>:list-index` that {@link ClientEntries.listEntries} reads. Any
 * failed write rejects the whole call, and a retry converges.
 *
 * The client's own key is written and removed first, and {@link ClientEntries.copyEntry} reads it
 * before and after writing a missing copy, undoing its copy when the entry changed between: so a
 * copy never outlives an entry removed or replaced while it was being written.
 *
 * Every write first records today's multi-key routes in `<prefix>:list-copy-routes`, and then also
 * removes the client's copies on the routes recorded there that are not multi-key today (since
 * redeployed without per-rule keys, or renamed): no script reads such a copy, but it would apply
 * again, stale, if its route regained per-rule keys.
 *
 * @example
 * const entries = createClientEntries(runner, "rate", ["api"]);
 * await entries.setList("203.0.113.7", "deny", 3_600_000); // rate:list:{203.0.113.7} and rate:list:{route:api}:203.0.113.7
 */
export function createClientEntries(runner: ScriptRunner, prefix: string, routeScopes: readonly string[] = []): ClientEntries {
  checkPrefix(prefix);
  const key = (tag: "list" | "tier", client: string) => buildKey({ prefix, tag, client, scope: "" });
  const index = `${prefix}:list-index`;
  const copyRoutes = `${prefix}:list-copy-routes`;
  const copyOn = (scopes: readonly string[], client: string) => scopes.map((scope) => buildKey({ prefix, tag: "list", client, scope, hashTag: "route" }));
  const copies = (client: string) => copyOn(routeScopes, client);
  const ttlArg = (ttlMs?: number) => (ttlMs === undefined ? "" : String(ttlMs));
  const call = async (script: LimiterScript, entry: string, args: string[], ok: (reply: unknown) => boolean) =>
    expectReply(await runScript(runner, script, [entry], args), ok);
  /** Resolves the value replaced, "" for none. */
  const set = async (entry: string, value: string, ttlMs?: number) => (await call(setEntry, entry, [value, ttlArg(ttlMs)], isString)) as string;
  const remove = async (entry: string, only: string) => (await call(deleteEntry, entry, [only], isFlag)) === 1;
  /** Records today's multi-key routes, before any copy is written there; resolves the recorded routes that are not multi-key today. */
  const formerRoutes = async () =>
    ((await call(recordCopyRoutes, copyRoutes, [...routeScopes], isStrings)) as string[]).filter((scope) => !routeScopes.includes(scope));
  // The record only grows, so once today's routes are in it, copyEntry need not add them again.
  let recorded: Promise<unknown> | undefined;
  const recordOnce = () => {
    recorded ??= formerRoutes().catch((error: unknown) => {
      recorded = undefined;
      throw error;
    });
    return recorded;
  };
  const read = async (client: string) => {
    const [value, pttl] = (await call(readEntry, key("list", client), [], isEntryReply)) as [string, number];
    // PTTL 0: Redis keeps a key until its time has passed, so one whose time is now still answers,
    // with no time left; gone a millisecond later, and no TTL to copy (SET refuses PX 0).
    if (pttl === 0) return { value: "", ttlMs: undefined };
    return { value, ttlMs: pttl > 0 ? pttl : undefined };
  };
  return {
    setList: async (client, kind, ttlMs) => {
      const former = copyOn(await formerRoutes(), client);
      const replaced = await set(key("list", client), kind, ttlMs);
      await every([
        ...copies(client).map((copy) => set(copy, kind, ttlMs)),
        ...former.map((copy) => remove(copy, "")),
        call(indexEntry, index, [client, kind, ttlArg(ttlMs)], isFlag),
      ]);
      return replaced === "allow" || replaced === "deny" ? replaced : undefined;
    },
    deleteList: async (client, kind) => {
      const former = copyOn(await formerRoutes(), client);
      const own = await remove(key("list", client), kind);
      const copied = copies(client).map((copy) => remove(copy, kind));
      await every([call(unindexEntry, index, [`${kind}:${client}`], isFlag), ...copied, ...former.map((copy) => remove(copy, ""))]);
      return own || (await Promise.all(copied)).some(Boolean);
    },
    readList: async (client) => {
      const { value, ttlMs } = await read(client);
      return value === "allow" || value === "deny" ? { kind: value, ttlMs: ttlMs ?? null } : undefined;
    },
    listEntries: async (after, count) => {
      const colon = after?.indexOf(":") ?? 0;
      const position = after === undefined ? ["", ""] : [after.slice(0, colon), after.slice(colon + 1)];
      const reply = (await call(readIndex, index, [...position, String(count)], isIndexReply)) as (string | number)[];
      const entries: ListEntry[] = [];
      for (let i = 0; i < reply.length; i += 3) {
        const member = reply[i] as string;
        const colon = member.indexOf(":");
        const ttlMs = reply[i + 1] as number;
        entries.push({ client: member.slice(colon + 1), kind: member.slice(0, colon) as ListKind, ttlMs: ttlMs < 0 ? null : ttlMs });
      }
      const next = entries.length === count ? `${reply[reply.length - 1]}:${reply[reply.length - 3]}` : null;
      return { entries, next };
    },
    copyEntry: async (client) => {
      if (routeScopes.length === 0) return 0;
      await recordOnce();
      const before = await read(client);
      if (before.value === "") return 0;
      const missing = copies(client);
      const wrote = await every(missing.map((copy) => call(setEntryIfAbsent, copy, [before.value, ttlArg(before.ttlMs)], isFlag)));
      const written = missing.filter((_, i) => wrote[i] === 1);
      if ((await read(client)).value === before.value) return written.length;
      // Removed or replaced meanwhile: the admin API's own copy writes follow its write of the entry, so undo ours.
      await every(written.map((copy) => remove(copy, before.value)));
      return 0;
    },
    setTier: async (client, tier) => (await set(key("tier", client), tier)) || undefined,
    deleteTier: (client) => remove(key("tier", client), ""),
  };
}

const isFlag = (reply: unknown) => reply === 0 || reply === 1;
const isString = (reply: unknown) => typeof reply === "string";
const isStrings = (reply: unknown) => Array.isArray(reply) && reply.every(isString);
const isEntryReply = (reply: unknown) => Array.isArray(reply) && reply.length === 2 && typeof reply[0] === "string" && Number.isInteger(reply[1]);
const isIndexReply = (reply: unknown) =>
  Array.isArray(reply) &&
  reply.length % 3 === 0 &&
  reply.every((item, i) =>
    i % 3 === 0
      ? typeof item === "string" && /^(allow|deny):/.test(item)
      : i % 3 === 1
        ? Number.isInteger(item)
        : typeof item === "string" && /^(inf|[0-9]+)$/.test(item),
  );

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
