/**
 * @module PURE: the admin API's answers as text for a terminal. Shapes follow the lead's admin API
 * contract; fields it may grow are printed generically (JSON) rather than refused, so that a newer
 * Worker does not break an older CLI.
 */
import type { ConfigAnswer, CopyAnswer, ListAnswer, ListsAnswer, ResetAnswer, StatusAnswer, TierAnswer } from "./answers.ts";
import { table, waitText, windowText } from "./table.ts";

/**
 * The status answer as a heading line (with the client's tier on a route with tiers), a line for
 * each list that names the client (the settings' lists decide first, then its dynamic entry, both
 * before any rule; an unlimited route, without rules, never reads the dynamic entry), and one row
 * per rule.
 *
 * @example
 * formatStatus({ client: "203.0.113.7", route: "default", rules: [{ name: "default", algorithm: "fixed-window", limit: 100, windowMs: 60000, remaining: 97, resetMs: 42100 }] });
 * // client 203.0.113.7 · route default
 * // rule     algorithm     limit  window  remaining  resets in
 * // default  fixed-window    100  1m             97  42.1 s
 */
export function formatStatus(answer: StatusAnswer): string {
  const tier = answer.tier ? ` · tier ${answer.tier}` : "";
  const settingsList = answer.staticList
    ? `\non the settings' ${answer.staticList} list: ${effectOf(answer.staticList)}, whatever the dynamic lists and the rules say`
    : "";
  const listed = answer.list ? `\n${listLine(answer.list, answer.listTtlMs ?? null, answer.rules.length === 0)}` : "";
  const heading = `client ${answer.client} · route ${answer.route}${tier}${settingsList}${listed}`;
  if (answer.rules.length === 0) return `${heading}\nno rules: the route is unlimited`;
  const columns = [
    { heading: "rule" },
    { heading: "algorithm" },
    { heading: "limit", right: true },
    { heading: "window" },
    { heading: "remaining", right: true },
    { heading: "resets in" },
  ];
  const rows = answer.rules.map((rule) => [
    rule.name,
    rule.algorithm,
    String(rule.limit),
    windowText(rule.windowMs),
    String(rule.remaining),
    waitText(rule.resetMs),
  ]);
  return `${heading}\n${table(columns, rows)}`;
}

/** `unlimited`: the route has no rules, so its requests never read the dynamic entry. */
function listLine(list: "deny" | "allow", ttlMs: number | null, unlimited: boolean): string {
  const until = ttlMs === null ? "until removed" : `for another ${waitText(ttlMs)}`;
  if (unlimited)
    return `on the ${list} list ${until}: not applied on this route, which is unlimited and forwards every request (only the settings' lists apply here)`;
  return `on the ${list} list ${until}: ${effectOf(list)}, whatever the rules say`;
}

function effectOf(list: "deny" | "allow"): string {
  return list === "deny" ? "every request is refused (403)" : "every request is forwarded uncounted";
}

/**
 * The reset answer as one line.
 *
 * @example
 * formatReset({ client: "203.0.113.7", route: "default", deleted: 2 });
 * // "reset client 203.0.113.7 on route default: deleted 2 Redis keys"
 */
export function formatReset(answer: ResetAnswer): string {
  const what = answer.deleted === 0 ? "nothing to delete (no counters in Redis)" : `deleted ${answer.deleted} Redis ${answer.deleted === 1 ? "key" : "keys"}`;
  return `reset client ${answer.client} on route ${answer.route}: ${what}`;
}

/**
 * A deny or allow answer as one line: what now holds on the routes that count this client, and for
 * how long, or that it holds nowhere yet. Unlimited routes never read the entry: a denied client is
 * still forwarded there.
 *
 * @example
 * formatList({ client: "203.0.113.7", list: "deny", ttlSeconds: 600, routes: ["default", "login"] });
 * // "denied client 203.0.113.7 for 10m on routes default, login (unlimited routes still forward it)"
 * formatList({ client: "203.0.113.7", list: "deny", ttlSeconds: null, routes: ["default"], fallbackRoutes: ["api"] });
 * // "denied client 203.0.113.7 until removed on route default, and on route api only for its requests without their key (…)"
 * formatList({ client: "asn:64496", list: "deny", ttlSeconds: null, routes: [] });
 * // "stored a deny entry for client asn:64496 until removed, but no limited route counts this kind of client: …"
 * formatList({ client: "203.0.113.7", list: "deny", ttlSeconds: null, was: "allow" });
 * // "denied client 203.0.113.7 until removed on every route that counts this client (unlimited routes still forward it; it was on the allow list: that entry is gone)"
 * formatList({ client: "203.0.113.7", list: "allow", deleted: false });
 * // "client 203.0.113.7 was not on the allow list"
 */
export function formatList(answer: ListAnswer): string {
  const { client, list } = answer;
  if ("deleted" in answer) return answer.deleted ? `removed client ${client} from the ${list} list` : `client ${client} was not on the ${list} list`;
  const until = answer.ttlSeconds === null ? "until removed" : `for ${windowText(answer.ttlSeconds * 1000)}`;
  const replaced = answer.was && answer.was !== list ? `it was on the ${answer.was} list: that entry is gone` : undefined;
  const where = metWhere(answer);
  if (where === "") return `stored ${list === "allow" ? "an" : "a"} ${list} entry for client ${client} ${until}, ${noRoute("limited route", replaced)}`;
  const how = list === "deny" ? "denied" : "allowed (uncounted)";
  // An allow changes nothing on an unlimited route, which forwards uncounted anyway; a deny does not apply there.
  const notes = [...(list === "deny" ? ["unlimited routes still forward it"] : []), ...(replaced ? [replaced] : [])];
  return `${how} client ${client} ${until} on ${where ?? "every route that counts this client"}${notes.length === 0 ? "" : ` (${notes.join("; ")})`}`;
}

/** Why an entry the Worker stored does nothing yet: written ahead of the route that will count it, or a mistake. */
function noRoute(what: string, note: string | undefined): string {
  return `but no ${what} counts this kind of client: it changes nothing until one does (see \`config\`${note ? `; ${note}` : ""})`;
}

/**
 * Where an answer's entry is met, after "on": its `routes`, then its `fallbackRoutes`, which count
 * an address only for its requests without their key; "" for nowhere, and undefined from a Worker
 * older than these fields.
 */
function metWhere({ routes, fallbackRoutes = [] }: { routes?: readonly string[]; fallbackRoutes?: readonly string[] }): string | undefined {
  if (routes === undefined) return undefined;
  const named = (names: readonly string[]) => `${names.length === 1 ? "route" : "routes"} ${names.join(", ")}`;
  const parts = [
    ...(routes.length > 0 ? [named(routes)] : []),
    ...(fallbackRoutes.length > 0 ? [`${named(fallbackRoutes)} only for its requests without their key`] : []),
  ];
  return parts.join(", and on ");
}

/**
 * Every list entry (all pages' `entries`) as a table, soonest to expire first.
 *
 * @example
 * formatLists([{ client: "203.0.113.7", list: "deny", ttlSeconds: 600 }, { client: "key:5d1c…", list: "allow", ttlSeconds: null }]);
 * // client       list   expires in
 * // 203.0.113.7  deny   10 min
 * // key:5d1c…    allow  never
 */
export function formatLists(entries: ListsAnswer["entries"]): string {
  if (entries.length === 0) return "no client is on the deny or allow list";
  const rows = entries.map(({ client, list, ttlSeconds }) => [client, list, ttlSeconds === null ? "never" : waitText(ttlSeconds * 1000)]);
  return table([{ heading: "client" }, { heading: "list" }, { heading: "expires in" }], rows);
}

/**
 * The copy answers (all pages' counts summed) as one line.
 *
 * @example
 * formatCopy({ routes: ["api"], entries: 12, copied: 3, next: null });
 * // "wrote 3 copies of 12 entries to route api (the rest were there already)"
 */
export function formatCopy(answer: CopyAnswer): string {
  if (answer.routes.length === 0) return "no route counts several keys: entries need no copies";
  if (answer.entries === 0) return "no client is on the deny or allow list: nothing to copy";
  const routes = `${answer.routes.length === 1 ? "route" : "routes"} ${answer.routes.join(", ")}`;
  const rest =
    answer.copied === 0 ? " (every copy was there already)" : answer.copied < answer.entries * answer.routes.length ? " (the rest were there already)" : "";
  return `wrote ${answer.copied} ${answer.copied === 1 ? "copy" : "copies"} of ${answer.entries} ${answer.entries === 1 ? "entry" : "entries"} to ${routes}${rest}`;
}

/**
 * A tier answer as one line.
 *
 * @example
 * formatTier({ client: "203.0.113.7", tier: "pro" }); // "client 203.0.113.7 is on tier pro (on every route with tiers)"
 * formatTier({ client: "203.0.113.7", tier: "pro", was: "free" }); // "client 203.0.113.7 is on tier pro (on every route with tiers, was free)"
 * formatTier({ client: "203.0.113.7", deleted: true }); // "removed client 203.0.113.7's tier: each route's default tier applies"
 */
export function formatTier(answer: TierAnswer): string {
  if ("tier" in answer) {
    const was = answer.was && answer.was !== answer.tier ? `was ${answer.was}` : undefined;
    const where = metWhere(answer);
    if (where === "") return `stored tier ${answer.tier} for client ${answer.client}, ${noRoute("route with tiers", was)}`;
    return `client ${answer.client} is on tier ${answer.tier} (on ${where ?? "every route with tiers"}${was ? `, ${was}` : ""})`;
  }
  return answer.deleted ? `removed client ${answer.client}'s tier: each route's default tier applies` : `client ${answer.client} had no tier`;
}

const ROUTE_FIELDS = ["pattern", "scope", "rules", "tiers", "unlimited", "key", "mode", "cost", "origin", "methods", "count", "allow", "deny"];
const RULE_FIELDS = ["name", "algorithm", "limit", "windowMs", "burst"];
/** Route fields printed as a column only when some route sets them: the defaults say nothing. */
const OPTIONAL_COLUMNS: readonly { field: string; unset: (value: unknown) => boolean }[] = [
  { field: "origin", unset: (value) => value === undefined },
  { field: "methods", unset: (value) => value === undefined },
  { field: "count", unset: (value) => value === undefined || value === "all" },
  { field: "allow", unset: isEmptyList },
  { field: "deny", unset: isEmptyList },
];

/**
 * The settings as `setting  value` lines (nested objects dotted, lists comma-separated, each
 * tier's rules as the routes' are), then a table of the routes in declaration order with the
 * default route (for unmatched requests) last. Keys and list entries arrive as the settings write
 * them (`cookie:sid`, `ip:10.0.0.0/8`).
 *
 * @example
 * formatConfig({ failureMode: "open", analytics: { client: "hashed" }, routes: [route], defaultRoute });
 * // setting           value
 * // failureMode       open
 * // analytics.client  hashed
 * //
 * // routes
 * // pattern  name  rules  key  mode  cost   (one row per route, then the default route)
 */
export function formatConfig(config: ConfigAnswer): string {
  const { routes, defaultRoute, tiers, ...rest } = config;
  const tierRows = Object.entries(asRecord(tiers)).map(([name, rules]) => [`tiers.${name}`, rulesText(rules)]);
  const settings = table([{ heading: "setting" }, { heading: "value" }], [...flatten(rest, ""), ...tierRows]);
  const all = [...(Array.isArray(routes) ? routes : []), ...(defaultRoute === undefined ? [] : [defaultRoute])].map(asRecord);
  if (all.length === 0) return settings;
  const optional = OPTIONAL_COLUMNS.filter(({ field, unset }) => all.some((route) => !unset(route[field]))).map(({ field }) => field);
  // A field the contract does not name yet gets a column of its own, after the known ones.
  const extra = [...new Set(all.flatMap((route) => Object.keys(route)))].filter((name) => !ROUTE_FIELDS.includes(name));
  const columns = [
    { heading: "pattern" },
    { heading: "name" },
    { heading: "rules" },
    { heading: "key" },
    { heading: "mode" },
    { heading: "cost", right: true },
    ...[...optional, ...extra].map((heading) => ({ heading })),
  ];
  const rows = all.map((route) => [
    valueText(route.pattern),
    route.scope === "" ? "(default)" : valueText(route.scope),
    route.unlimited === true ? "unlimited" : route.tiers !== undefined ? tiersText(route.tiers) : rulesText(route.rules),
    valueText(route.key),
    valueText(route.mode),
    valueText(route.cost),
    ...[...optional, ...extra].map((name) => valueText(route[name])),
  ]);
  return `${settings}\n\nroutes\n${table(columns, rows)}`;
}

/**
 * The admin API's problem details (RFC 9457) as the CLI's one stderr line; the title falls back to
 * the status text, and a problem without a detail prints none. Retry-After is printed when the
 * detail does not already say when to retry.
 *
 * @example
 * formatProblem(404, "Not Found", '{"type":"about:blank","title":"Not Found","status":404,"detail":"unknown route \\"x\\""}');
 * // 'ratewall admin: 404 Not Found: unknown route "x"'
 */
export function formatProblem(status: number, statusText: string, body: string, retryAfter?: string | null): string {
  const problem = asRecord(parseJson(body));
  const title = typeof problem.title === "string" ? problem.title : statusText;
  const detail = typeof problem.detail === "string" ? problem.detail : "";
  // The Worker's lockout detail already names the wait; Retry-After is added only where it does not.
  const retry = retryAfter && !/retry after/i.test(detail) ? ` (retry after ${retryAfter} s)` : "";
  return `ratewall admin: ${status} ${title}${detail === "" ? "" : `: ${detail}`}${retry}`;
}

function flatten(value: Record<string, unknown>, prefix: string): string[][] {
  return Object.entries(value).flatMap(([name, field]) =>
    isPlainObject(field) && Object.keys(field).length > 0 ? flatten(field, `${prefix}${name}.`) : [[`${prefix}${name}`, valueText(field)]],
  );
}

function rulesText(rules: unknown): string {
  if (!Array.isArray(rules)) return valueText(rules);
  return rules
    .map(asRecord)
    .map((rule) => {
      const burst = rule.burst === undefined ? [] : [`burst ${valueText(rule.burst)}`];
      const extra = Object.keys(rule)
        .filter((name) => !RULE_FIELDS.includes(name))
        .map((name) => `${name}=${valueText(rule[name])}`);
      const window = typeof rule.windowMs === "number" ? windowText(rule.windowMs) : valueText(rule.windowMs);
      return [valueText(rule.name), `${valueText(rule.limit)}/${window}`, valueText(rule.algorithm), ...burst, ...extra].join(" ");
    })
    .join(", ");
}

/** A route with tiers: its tiers' rules are the settings' `tiers.<name>` rows. */
function tiersText(tiers: unknown): string {
  const { defaultTier } = asRecord(tiers);
  return typeof defaultTier === "string" ? `by tier (TIERS), default ${defaultTier}` : valueText(tiers);
}

function isEmptyList(value: unknown): boolean {
  return value === undefined || (Array.isArray(value) && value.length === 0);
}

function valueText(value: unknown): string {
  if (value === undefined || value === null) return "-";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item === "string" || typeof item === "number")) return value.length === 0 ? "-" : value.join(", ");
  return JSON.stringify(value);
}

function asRecord(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
