/**
 * @module The Redis key of one rule for one client (docs/architecture.md, "Keys and hash tags").
 * Pure: the algorithm drivers append what depends on `now` (a window index).
 */

/** What names one counter. */
export interface KeyParts {
  /** First segment of every key (`KEY_PREFIX`), e.g. `rate`. */
  prefix: string;
  /** The algorithm's short tag, e.g. `fixed`, `sliding`. */
  tag: string;
  /** The client's identifier, already normalized by src/keys/identify. */
  client: string;
  /** The route's scope; empty for the default route, and then left out. */
  scope: string;
  /** The rule's name, given only when the route has several rules. */
  rule?: string;
  /**
   * What the hash tag holds: the client (the default), or the route, for a route whose rules count
   * different clients (one decision must stay in one Redis Cluster slot; docs/architecture.md).
   */
  hashTag?: "client" | "route";
}

/**
 * Builds `<prefix>:<tag>:{<client>}[:<scope>][:<rule>]`, or with the route as the hash tag
 * `<prefix>:<tag>:{route:<scope>}:<client>[:<rule>]`. The braces are a Redis Cluster hash tag:
 * every key of one client's decision lands in one slot, so a multi-key script stays valid on a
 * cluster. A client containing a brace would move the tag, so it is refused.
 *
 * @example
 * buildKey({ prefix: "rate", tag: "fixed", client: "203.0.113.7", scope: "" })
 * // "rate:fixed:{203.0.113.7}"
 * buildKey({ prefix: "rate", tag: "gcra", client: "2001:db8::/64", scope: "api", rule: "hourly" })
 * // "rate:gcra:{2001:db8::/64}:api:hourly"
 * buildKey({ prefix: "rate", tag: "fixed", client: "key:5d1c…", scope: "api", rule: "daily", hashTag: "route" })
 * // "rate:fixed:{route:api}:key:5d1c…:daily"
 */
export function buildKey({ prefix, tag, client, scope, rule, hashTag = "client" }: KeyParts): string {
  if (client === "" || client.includes("{") || client.includes("}")) {
    throw new RangeError(`client identifier ${JSON.stringify(client)} cannot be a hash tag`);
  }
  let key = hashTag === "route" ? `${prefix}:${tag}:{route:${scope}}:${client}` : `${prefix}:${tag}:{${client}}`;
  if (scope !== "" && hashTag === "client") key += `:${scope}`;
  if (rule !== undefined) key += `:${rule}`;
  return key;
}

/**
 * Refuses a key prefix that is no string, or that holds a brace: it leads every key, before the
 * hash tag, and Redis Cluster hashes the first `{…}` of a key, so a brace there would send one
 * decision's keys to different slots (CROSSSLOT). Returns the prefix.
 *
 * @example
 * checkPrefix("rate"); // "rate"
 * checkPrefix("app{1}"); // throws RangeError: prefix: expected a string without "{" or "}" …
 */
export function checkPrefix(prefix: unknown): string {
  if (typeof prefix !== "string" || prefix.includes("{") || prefix.includes("}")) {
    throw new RangeError(
      `prefix: expected a string without "{" or "}" (Redis Cluster reads a hash tag from them), got ${JSON.stringify(prefix) ?? String(prefix)}`,
    );
  }
  return prefix;
}
