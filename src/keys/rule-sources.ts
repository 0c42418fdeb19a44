/**
 * @module Who each rule of a route counts (README.md, "ROUTES"): a rule's own `key`, else the
 * route's. A route whose rules resolve to more than one distinct key source is "multi-key": each
 * request is identified once per distinct source, and each rule is charged against its own client.
 */
import { formatKeySource } from "../config/key-source.ts";
import type { KeySource, RouteSettings } from "../config/types.ts";
import { clientPrefix, clientPrefixOf, identify, type Identity, type IdentifyOptions, type RequestFacts } from "./identify.ts";

/** The distinct key sources of a route's rules, and which one each rule counts. */
export interface RuleSources {
  /** In order of first use; one on a single-key route. */
  sources: KeySource[];
  /** Per rule of the route, the index of its source in {@link RuleSources.sources}. */
  ofRule: number[];
}

/**
 * Resolves each rule's key source. A route without rules (unlimited) has the route's own.
 *
 * @example
 * ruleSources({ ...route, key: { kind: "ip" }, rules: [perIp, { ...daily, key: { kind: "header", name: "x-api-key" } }] });
 * // { sources: [{ kind: "ip" }, { kind: "header", name: "x-api-key" }], ofRule: [0, 1] }
 */
export function ruleSources(route: Pick<RouteSettings, "key" | "rules">): RuleSources {
  const sources: KeySource[] = [];
  const ids: string[] = [];
  const ofRule = route.rules.map((rule) => {
    const source = rule.key ?? route.key;
    const id = formatKeySource(source);
    if (!ids.includes(id)) {
      ids.push(id);
      sources.push(source);
    }
    return ids.indexOf(id);
  });
  return { sources: sources.length === 0 ? [route.key] : sources, ofRule };
}

/** How a multi-key route identifies its requests: one set of options per distinct source. */
export interface PerRuleIdentify {
  sources: readonly IdentifyOptions[];
  ofRule: readonly number[];
}

/** A request's clients on a route: one per rule on a multi-key route, and the fallbacks met. */
export interface RequestClients {
  /** The client of a single-key route; on a multi-key route, the first rule's. */
  client: string;
  /** Per rule, on a multi-key route only. */
  clients?: string[];
  /** Each identification that fell back (missing key, bad address), for the log. */
  fallbacks: Identity[];
}

/**
 * Identifies a request: once for a single-key route, once per distinct source on a multi-key one
 * (missing parts fall back as {@link identify} says, each on its own).
 *
 * @example
 * await identifyClients(headers, route.identify, route.perRule, { url, cf });
 * // { client: "203.0.113.7", clients: ["203.0.113.7", "key:5d1c…"], fallbacks: [] }
 */
export async function identifyClients(
  headers: Headers,
  single: IdentifyOptions,
  perRule: PerRuleIdentify | undefined,
  request: RequestFacts,
): Promise<RequestClients> {
  if (perRule === undefined) {
    const identity = await identify(headers, single, request);
    return { client: identity.client, fallbacks: identity.warning ? [identity] : [] };
  }
  const identities = await Promise.all(perRule.sources.map((options) => identify(headers, options, request)));
  const clients = perRule.ofRule.map((index) => identities[index]!.client);
  return { client: clients[0]!, clients, fallbacks: identities.filter((identity) => identity.warning) };
}

/**
 * Whether a client identifier is of the kind `source` produces (an address for `ip`, `key:` for a
 * header, …): the admin API acts on the rules of a multi-key route that count such clients.
 *
 * @example
 * countsClient({ kind: "header", name: "x-api-key" }, "key:5d1c…"); // true
 * countsClient({ kind: "ip" }, "key:5d1c…"); // false
 */
export function countsClient(source: KeySource, client: string): boolean {
  return clientPrefix(source) === clientPrefixOf(client);
}
