/**
 * @module `TIERS`: named rule sets (`{ "free": "100/1h", "pro": ["5000/1h", "100/1s"] }`), JSON
 * text or a TOML table. A route opts in with `"tiers": "<default tier>"`; each client's tier is
 * stored in Redis (admin API) and read by the deciding script in the same call.
 */
import type { AlgorithmName, Rule } from "../limiter/types.ts";
import { type At, child, fail, parseJsonText, quote } from "./read.ts";
import { parseRules } from "./routes.ts";
import { readName } from "./rule.ts";

/**
 * Why a tier's rule has no `key` of its own: a tier belongs to one client (its `rate:tier:{client}`
 * entry), and a rule counting another client would apply that client's tier to someone else.
 */
const TIER_KEY = 'a tier belongs to one client, so its rules count the route\'s "key"';

/**
 * Reads `TIERS`; each tier's rules are read as a route's `rules` are.
 *
 * @example
 * parseTiers('{"free": "100/1h", "pro": ["5000/1h", "100/1s"]}', { source: "TIERS", path: "" }, "fixed-window");
 * // { free: [{ name: "default", limit: 100, … }], pro: [{ name: "5000-per-1h", … }, { name: "100-per-1s", … }] }
 */
export function parseTiers(value: unknown, at: At, algorithm: AlgorithmName): Record<string, Rule[]> {
  const tiers = typeof value === "string" ? parseJsonText(value, at, 'an object such as {"free": "100/1h", "pro": "5000/1h"}') : value;
  if (typeof tiers !== "object" || tiers === null || Array.isArray(tiers)) fail(at, `expected an object of tiers, got ${quote(tiers)}`);
  const entries = Object.entries(tiers);
  if (entries.length === 0) fail(at, "expected at least one tier");
  return Object.fromEntries(
    entries.map(([name, rules]) => {
      // Tier names end up in Redis keys and in answers: the rule names' alphabet.
      readName(name, child(at, name), "tier name");
      return [name, parseRules(rules, child(at, name), algorithm, TIER_KEY)];
    }),
  );
}
