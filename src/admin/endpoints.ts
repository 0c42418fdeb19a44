/**
 * @module The admin API's endpoints, by path and method (README, "Operating ratewall"). Each
 * takes the runtime and the query, and answers JSON; a bad parameter is a 400 naming it, an
 * unknown route or tier a 404 listing the known ones. Redis errors are thrown to ./admin-api.ts.
 */
import { problemJson } from "../answers.ts";
import { blockKey } from "../block-cache.ts";
import { formatKeySource } from "../config/key-source.ts";
import type { KeySource } from "../config/types.ts";
import { policyWindowMs, requestsOf } from "../headers/rate-limit-headers.ts";
import { clientPrefixOf } from "../keys/identify.ts";
import { asKeyValue } from "../keys/sources.ts";
import { parseIp } from "../keys/ip.ts";
import { countsClient } from "../keys/rule-sources.ts";
import type { ListKind } from "../limiter/index.ts";
import { isListCursor } from "../limiter/entries/index.ts";
import { type ListVerdict, listVerdict, networkVerdict } from "../lists/verdict.ts";
import type { CompiledRoute, Runtime } from "../middleware/rate-limit/runtime.ts";
import { readClientParam } from "./client-param.ts";
import { configAnswer } from "./config-answer.ts";

type Endpoint = (runtime: Runtime, query: URLSearchParams) => Promise<Response>;

/** Long enough for any ban an operator means; a longer one is a typo. */
const MAX_TTL_SECONDS = 366 * 24 * 3600;

/** Every endpoint: path under `/__ratewall/` → method → handler. */
export const ENDPOINTS: Readonly<Record<string, Readonly<Record<string, Endpoint>>>> = {
  status: { GET: status },
  reset: { POST: reset },
  config: { GET: async (runtime) => Response.json(configAnswer(runtime.settings)) },
  deny: { POST: (runtime, query) => putOnList(runtime, query, "deny"), DELETE: (runtime, query) => takeOffList(runtime, query, "deny") },
  allow: { POST: (runtime, query) => putOnList(runtime, query, "allow"), DELETE: (runtime, query) => takeOffList(runtime, query, "allow") },
  tier: { POST: setTier, DELETE: deleteTier },
  lists: { GET: listEntries },
  "lists/copy": { POST: copyEntries },
};

/** Entries in one `GET /__ratewall/lists` answer: one Redis call reads them all. */
const LIST_PAGE = 500;
/**
 * Subrequests one `POST /__ratewall/lists/copy` may make: under the 50 a Workers Free invocation
 * allows (developers.cloudflare.com/workers/platform/limits/#subrequests), with room for the
 * failed-token guard, the index read and the record of the routes.
 */
const COPY_SUBREQUESTS = 44;

async function status(runtime: Runtime, query: URLSearchParams): Promise<Response> {
  const found = await target(runtime, query);
  if (found instanceof Response) return found;
  const { route, client, counted } = found;
  const now = runtime.clock();
  const decision =
    route.limiter && (await route.limiter.status({ client, ...clientsOf(route, client), scope: route.settings.scope, cost: route.settings.cost, now }));
  const tierRules = route.rulesFor(decision?.tier);
  const rules = decision
    ? tierRules.flatMap((rule, i) => {
        const outcome = decision.rules[i]!;
        if (counted && !counted.includes(rule.name)) return [];
        return [
          {
            name: rule.name,
            algorithm: rule.algorithm,
            // As RateLimit-Policy and RateLimit give them: in requests of the route's cost, and a
            // token bucket's quota is its burst, refilled in this time.
            limit: requestsOf(outcome.limit, route.settings.cost),
            windowMs: Math.round(policyWindowMs(rule, route.settings.cost)),
            remaining: requestsOf(outcome.remaining, route.settings.cost),
            resetMs: Math.max(0, outcome.resetAt - now),
          },
        ];
      })
    : [];
  let list: ListKind | null = decision?.reason === "deny-list" ? "deny" : decision?.reason === "allow-list" ? "allow" : null;
  let listTtlMs = decision?.listExpiresAt === undefined ? null : decision.listExpiresAt - now;
  if (!route.limiter) {
    // An unlimited route never reads the entry (no Redis call per request); the operator still sees it, not applied here.
    const entry = await runtime.entries.readList(client);
    list = entry?.kind ?? null;
    listTtlMs = entry?.ttlMs ?? null;
  }
  const staticList = staticListOf(route, query.get("client"), client) ?? null;
  return Response.json({ client, route: route.name, ...(route.settings.tiers ? { tier: decision?.tier ?? null } : {}), staticList, list, listTtlMs, rules });
}

/**
 * What the route's and the global `ALLOW`/`DENY` say about `client=` (`raw`; `client` is it
 * normalized), which they decide before any dynamic entry or rule. Known for an address, for an
 * IPv6 network as the logs print it (when the lists decide the same for all of its addresses), and
 * for an `asn:`/`country:` identifier; a hashed key's requests may come from any address, so for
 * one the lists cannot be asked.
 */
function staticListOf(route: CompiledRoute, raw: string | null, client: string): ListVerdict {
  if (!route.lists || raw === null) return undefined;
  if (parseIp(raw) !== undefined) return listVerdict(route.lists, { ip: raw });
  const [network = "", length] = client.split("/");
  const ip = length === undefined ? undefined : parseIp(network);
  if (ip !== undefined) return networkVerdict(route.lists, ip, Number(length));
  const prefix = clientPrefixOf(client);
  if (prefix !== "asn" && prefix !== "country") return undefined;
  const value = client.slice(prefix.length + 1);
  return listVerdict(route.lists, prefix === "asn" ? { asn: Number(value) } : { country: value });
}

async function reset(runtime: Runtime, query: URLSearchParams): Promise<Response> {
  const found = await target(runtime, query);
  if (found instanceof Response) return found;
  const { route, client, counted } = found;
  const deleted = route.limiter
    ? await route.limiter.reset({ client, ...clientsOf(route, client), scope: route.settings.scope, now: runtime.clock() }, counted)
    : 0;
  runtime.blocks.delete(blockKey(route.settings.scope, client));
  return Response.json({ client, route: route.name, deleted });
}

async function putOnList(runtime: Runtime, query: URLSearchParams, kind: ListKind): Promise<Response> {
  const client = await clientParam(runtime, query);
  if (client instanceof Response) return client;
  const ttl = query.get("ttl");
  const seconds = ttl === null ? undefined : /^[1-9][0-9]{0,8}$/.test(ttl) && Number(ttl) <= MAX_TTL_SECONDS ? Number(ttl) : NaN;
  if (Number.isNaN(seconds))
    return problemJson(
      400,
      `Invalid ttl ${JSON.stringify(ttl!.slice(0, 40))}: expected whole seconds from 1 to ${MAX_TTL_SECONDS}, or no ttl for an entry until removed.`,
    );
  const was = await runtime.entries.setList(client, kind, seconds === undefined ? undefined : seconds * 1000);
  // The list decides this isolate's next answer at once (an allowed client let through, a denied
  // one refused 403, not 429 from a rate block); other isolates re-ask Redis within BLOCK_RECHECK_MS.
  forgetBlocks(runtime, client);
  const met = meetingRoutes(runtime, client, (route) => route.limiter !== undefined);
  return Response.json({ client, list: kind, ttlSeconds: seconds ?? null, was: was ?? null, ...met });
}

async function takeOffList(runtime: Runtime, query: URLSearchParams, kind: ListKind): Promise<Response> {
  const client = await clientParam(runtime, query);
  if (client instanceof Response) return client;
  const deleted = await runtime.entries.deleteList(client, kind);
  if (kind === "deny") forgetBlocks(runtime, client);
  return Response.json({ client, list: kind, deleted });
}

/** A page of the dynamic list entries, soonest to expire first; `next` is the next page's cursor, or null. */
async function listEntries(runtime: Runtime, query: URLSearchParams): Promise<Response> {
  const cursor = cursorParam(query);
  if (cursor instanceof Response) return cursor;
  const found = await runtime.entries.listEntries(cursor, LIST_PAGE);
  const entries = found.entries.map(({ client, kind, ttlMs }) => ({ client, list: kind, ttlSeconds: ttlMs === null ? null : Math.ceil(ttlMs / 1000) }));
  return Response.json({ entries, next: found.next });
}

/**
 * Writes the copies a page of entries lacks on today's multi-key routes (README, "Dynamic lists").
 * A page is as many entries as fit the subrequest budget: each costs two reads of the entry, a
 * write per route, and an undo per route when the entry changed meanwhile (beside the page's read
 * of the index and, once per isolate, the record of the routes).
 */
async function copyEntries(runtime: Runtime, query: URLSearchParams): Promise<Response> {
  const cursor = cursorParam(query);
  if (cursor instanceof Response) return cursor;
  const routes = [...runtime.routesByName.values()].filter((route) => route.perRule).map((route) => route.name);
  if (routes.length === 0) return Response.json({ routes, entries: 0, copied: 0, next: null });
  const page = Math.max(1, Math.floor(COPY_SUBREQUESTS / (2 + 2 * routes.length)));
  const found = await runtime.entries.listEntries(cursor, page);
  let copied = 0;
  for (const { client } of found.entries) copied += await runtime.entries.copyEntry(client);
  return Response.json({ routes, entries: found.entries.length, copied, next: found.next });
}

/** `cursor=`, the previous page's `next`; none (or `offset=0`, as pages were once asked for) for the first page. */
function cursorParam(query: URLSearchParams): string | undefined | Response {
  const cursor = query.get("cursor");
  const offset = query.get("offset");
  if (offset !== null && offset !== "0")
    return problemJson(
      400,
      `Invalid offset ${JSON.stringify(offset.slice(0, 40))}: pages follow \`cursor\`, the \`next\` of the previous page; only offset=0 is taken, for the first page.`,
    );
  if (cursor === null) return undefined;
  if (isListCursor(cursor)) return cursor;
  return problemJson(400, `Invalid cursor ${JSON.stringify(cursor.slice(0, 80))}: expected the \`next\` of the previous page, as it was given.`);
}

async function setTier(runtime: Runtime, query: URLSearchParams): Promise<Response> {
  const client = await clientParam(runtime, query, { reads: readsTiers });
  if (client instanceof Response) return client;
  const tier = query.get("tier");
  const names = Object.keys(runtime.settings.tiers);
  const known = `(tiers: ${names.map((name) => JSON.stringify(name)).join(", ") || "none; define them in TIERS"}).`;
  if (tier === null) return problemJson(400, `Missing tier ${known}`);
  if (!names.includes(tier)) return problemJson(404, `Unknown tier ${JSON.stringify(tier.slice(0, 100))} ${known}`);
  const was = await runtime.entries.setTier(client, tier);
  forgetBlocks(runtime, client);
  return Response.json({ client, tier, was: was ?? null, ...meetingRoutes(runtime, client, readsTiers) });
}

async function deleteTier(runtime: Runtime, query: URLSearchParams): Promise<Response> {
  const client = await clientParam(runtime, query, { reads: readsTiers });
  if (client instanceof Response) return client;
  const deleted = await runtime.entries.deleteTier(client);
  forgetBlocks(runtime, client);
  return Response.json({ client, deleted });
}

/** Only a limited route with `tiers` reads a client's tier (an unlimited one reads no entry at all). */
const readsTiers = (route: CompiledRoute) => route.limiter !== undefined && route.settings.tiers !== undefined;

/**
 * Where an entry for `client` is met now, among the routes `reads` picks: `routes`, those with a
 * rule that counts clients of its kind (an address: keyed by `ip`; an identifier such as `asn:`,
 * `cookie:`, `key:`: keyed by that kind), and for an address `fallbackRoutes`, those keyed by
 * something else, which count it only for its requests without their key. Neither is refused
 * when empty: an entry may be written ahead of the route that will count it (README, "Dynamic
 * lists"), but the answer must not read as if it changed anything.
 */
function meetingRoutes(runtime: Runtime, client: string, reads: (route: CompiledRoute) => boolean): { routes: string[]; fallbackRoutes: string[] } {
  const address = clientPrefixOf(client) === undefined;
  const routes: string[] = [];
  const fallbackRoutes: string[] = [];
  for (const route of runtime.routesByName.values()) {
    if (!reads(route)) continue;
    if (keysOf(route).some((source) => countsClient(source, client))) routes.push(route.name);
    else if (address) fallbackRoutes.push(route.name);
  }
  return { routes, fallbackRoutes };
}

/** Drops `client`'s blocks on every route of this isolate: its next request asks Redis. */
function forgetBlocks(runtime: Runtime, client: string): void {
  for (const route of runtime.routesByName.values()) runtime.blocks.delete(blockKey(route.settings.scope, client));
}

/** The route `route=` names (the default route without it), or the 404 that lists the names. */
function routeParam(runtime: Runtime, query: URLSearchParams): CompiledRoute | Response {
  const name = query.get("route") ?? runtime.defaultRoute.name;
  const route = runtime.routesByName.get(name);
  if (route) return route;
  const names = [...runtime.routesByName.keys()].map((known) => JSON.stringify(known)).join(", ");
  return problemJson(404, `Unknown route ${JSON.stringify(name.slice(0, 200))} (routes: ${names}).`);
}

/**
 * The client a request names. `key=` is read as `asRead` says; deny, allow and tier name no
 * route, so by default as the header keys of the routes that `reads` picks read it.
 */
async function clientParam(
  runtime: Runtime,
  query: URLSearchParams,
  {
    keyPrefix,
    asRead,
    reads = (route) => route.limiter !== undefined,
  }: { keyPrefix?: string; asRead?: (raw: string) => string; reads?: (route: CompiledRoute) => boolean } = {},
): Promise<string | Response> {
  const param = await readClientParam(query, runtime.settings.ipv6Subnet, keyPrefix, asRead ?? headerReading(runtime, reads));
  return "error" in param ? problemJson(400, param.error) : param.client;
}

/**
 * A raw value as the header keys of the routes `reads` picks read it: an Authorization credential
 * with its scheme in any case and spacing (`asKeyValue`), any other header as sent; `undefined`
 * where they differ, since then no one client is meant.
 */
function headerReading(runtime: Runtime, reads: (route: CompiledRoute) => boolean): (raw: string) => string | undefined {
  return (raw) => {
    const readings = new Set(headerSources(runtime, reads).map((source) => asKeyValue(source, raw)));
    return readings.size > 1 ? undefined : ([...readings][0] ?? raw);
  };
}

/** The header key sources of the routes `reads` picks: their own key and their rules'. */
function headerSources(runtime: Runtime, reads: (route: CompiledRoute) => boolean): Array<{ kind: "header"; name: string }> {
  const sources = [...runtime.routesByName.values()].filter(reads).flatMap(keysOf);
  return sources.filter((source): source is { kind: "header"; name: string } => source.kind === "header");
}

/** The key sources a route counts clients by: its rules' on a multi-key route (its own is the first), else its own. */
function keysOf(route: CompiledRoute): KeySource[] {
  return route.perRule?.sources.map((options) => options.key) ?? [route.identify.key];
}

/**
 * The route and client of a status or reset request, or the answer that refuses it. On a
 * multi-key route, `counted` names the rules that count clients of this kind (`client=` for rules
 * keyed by address, `key=` for rules keyed by a header): status shows and reset deletes only those.
 */
async function target(runtime: Runtime, query: URLSearchParams): Promise<{ route: CompiledRoute; client: string; counted?: string[] } | Response> {
  const route = routeParam(runtime, query);
  if (route instanceof Response) return route;
  // On a route keyed by one cookie or query value, `key=` is that value: hashed with its prefix.
  const source = route.identify.key;
  // On a route keyed by several headers, `key=` is read as Authorization when one of them is.
  const headers = keysOf(route).filter((key) => key.kind === "header");
  const keyed = headers.find((key) => key.name === "authorization") ?? headers[0] ?? source;
  const client = await clientParam(runtime, query, {
    keyPrefix: !route.perRule && (source.kind === "cookie" || source.kind === "query") ? source.kind : "key",
    asRead: (raw) => asKeyValue(keyed, raw),
  });
  if (client instanceof Response) return client;
  if (!route.perRule) {
    // An address is always counted (a keyed route falls back to it); an identifier only by a route keyed by its kind.
    if (clientPrefixOf(client) === undefined || countsClient(source, client)) return { route, client };
    return problemJson(
      400,
      `Route ${JSON.stringify(route.name)} counts clients by ${formatKeySource(source)}, not by this kind of client; "client" names an address or an identifier as the logs print it, "key" the raw value of the route's key.`,
    );
  }
  const { sources, ofRule } = route.perRule;
  const counted = route.settings.rules.filter((_, i) => countsClient(sources[ofRule[i]!]!.key, client)).map((rule) => rule.name);
  if (counted.length > 0) return { route, client, counted };
  const keys = route.settings.rules.map((rule, i) => `${rule.name}: ${formatKeySource(sources[ofRule[i]!]!.key)}`).join(", ");
  return problemJson(
    400,
    `No rule of route ${JSON.stringify(route.name)} counts this kind of client (${keys}); "client" names an address, "key" a header's value.`,
  );
}

/** On a multi-key route, the one identifier stands for each rule's client (only the counted rules' answers are used). */
function clientsOf(route: CompiledRoute, client: string): { clients?: string[] } {
  return route.perRule ? { clients: route.settings.rules.map(() => client) } : {};
}
