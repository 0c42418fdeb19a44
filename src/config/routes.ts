/**
 * @module `ROUTES`: a JSON list (or, from wrangler's `[vars]`, an already structured list) of
 * routes, each read key by key against the allowed set so that a typo is an error (envoy's
 * `validKeys`).
 */
import type { AlgorithmName, Rule } from "../limiter/types.ts";
import { type Pattern, parsePattern } from "../routing/pattern.ts";
import { withHead } from "../routing/match.ts";
import { parseCount, parseMethods } from "./http.ts";
import { parseKeySource } from "./key-source.ts";
import { parseEntries } from "./lists.ts";
import { type At, child, fail, quote, readChoice, readInteger, readJsonList, readObject, readOriginUrl, readString } from "./read.ts";
import { ALGORITHMS, parseRule, readName, ruleTextName } from "./rule.ts";
import { type Mode, MODES, type RouteRule, type RouteSettings } from "./types.ts";

const ROUTE_KEYS = [
  "pattern",
  "name",
  "origin",
  "rules",
  "tiers",
  "algorithm",
  "key",
  "cost",
  "mode",
  "unlimited",
  "methods",
  "count",
  "allow",
  "deny",
] as const;
/** Generous for any real API, small enough that one request cannot spend a whole window. */
const MAX_COST = 1_000;

/** What a route inherits from the top-level variables. */
export interface RouteDefaults {
  algorithm: AlgorithmName;
  mode: Mode;
  /** `TIERS`, for routes that opt in with `"tiers": "<default tier>"`. */
  tiers: Readonly<Record<string, Rule[]>>;
  origin?: string;
}

/** The first character of a key part after a scope: a name's (rule.ts, tiers.ts) or a window index's. */
const KEY_PART_START = /^[a-z0-9-]$/;

/**
 * Reads `ROUTES`.
 *
 * @example
 * parseRoutes('[{"pattern":"api.example.com/login*","rules":["5/1m","50/1h"]}]', defaults);
 */
export function parseRoutes(value: unknown, defaults: RouteDefaults): RouteSettings[] {
  const at: At = { source: "ROUTES", path: "" };
  const list = readJsonList(value, at, "routes", '[{"pattern": "example.com/*", "rules": "10/1s"}]');
  const routes = list.map((entry, index) => parseRoute(entry, child(at, index), defaults));
  const seen = new Map<string, number>();
  routes.forEach((route, index) => {
    const first = seen.get(route.scope);
    if (first !== undefined) {
      // A route's scope is its name when it has one, else its pattern: blame what was written.
      if (route.scope !== route.pattern) fail(child(child(at, index), "name"), `duplicate route name ${quote(route.scope)} (also ROUTES[${first}])`);
      fail(child(child(at, index), "pattern"), `duplicate route ${quote(route.scope)} (also ROUTES[${first}]; give one a "name")`);
    }
    seen.set(route.scope, index);
  });
  // Keys join scope and rule with ":" (src/keys/build-key.ts), and names hold none, so only a
  // pattern can: `*/login:5-per-1m` would count on `*/login`'s rule `5-per-1m`. What follows a
  // scope's ":" in a key (a rule or tier name, a window index) starts with one of KEY_PART_START,
  // so `https://a.example/y` never meets a route named `https`.
  routes.forEach((route, index) => {
    for (let colon = route.scope.indexOf(":"); colon >= 0; colon = route.scope.indexOf(":", colon + 1)) {
      const other = seen.get(route.scope.slice(0, colon));
      if (other === undefined || !KEY_PART_START.test(route.scope.charAt(colon + 1))) continue;
      const why = `as keys join a route's name, else its pattern, to a rule's with ":" (give one a "name")`;
      fail(child(child(at, index), "pattern"), `${quote(route.scope)} would share Redis keys with ROUTES[${other}] (${quote(routes[other]!.scope)}), ${why}`);
    }
  });
  const keys = routes.map((route) => patternKey(route.pattern));
  routes.forEach((route, index) => {
    const earlier = routes.findIndex((other, i) => i < index && keys[i] === keys[index] && shadows(other, route));
    if (earlier >= 0) {
      const other = routes[earlier]!.pattern;
      const why =
        other === route.pattern
          ? ""
          : " (patterns ignore case and percent-encoding, read a host in its ASCII form, and match an exact path with or without its trailing slash)";
      const message = `${quote(route.pattern)} matches the requests ROUTES[${earlier}] (${quote(other)}) matches, for every method it has, so it would never apply${why}`;
      fail(child(child(at, index), "pattern"), message);
    }
  });
  return routes;
}

/**
 * Whether `earlier`, of the same pattern once compiled, takes every request `later` would
 * (src/routing/match.ts): `later` is no narrower in methods (a route with `methods` beats one
 * without, whatever their order).
 */
function shadows(earlier: RouteSettings, later: RouteSettings): boolean {
  const methods = withHead(earlier.methods);
  if (!methods) return !later.methods;
  return later.methods?.every((method) => methods.includes(method)) ?? false;
}

/** A pattern as matching reads it, for comparing two: case, a trailing dot, … aside. */
function patternKey(source: string): string {
  const { scheme = "", hostKind, host, pathKind, path } = parsePattern(source) as Pattern;
  return `${scheme} ${hostKind} ${host} ${pathKind} ${path}`;
}

function parseRoute(value: unknown, at: At, defaults: RouteDefaults): RouteSettings {
  const raw = readObject(value, ROUTE_KEYS, at);
  if (raw.pattern === undefined) fail(at, 'missing key "pattern"');
  const pattern = readString(raw.pattern, child(at, "pattern"));
  const compiled = parsePattern(pattern);
  if (typeof compiled === "string") fail(child(at, "pattern"), `invalid pattern ${quote(pattern)}: ${compiled}`);
  const unlimited = raw.unlimited === undefined ? false : readBoolean(raw.unlimited, child(at, "unlimited"));
  const algorithm = raw.algorithm === undefined ? defaults.algorithm : readChoice(raw.algorithm, ALGORITHMS, "algorithm", child(at, "algorithm"));
  // Each of these shapes what a route counts, and an unlimited route counts nothing: ignored, it
  // would be a setting that silently does nothing.
  for (const key of ["rules", "cost", "count", "algorithm", "mode"] as const) {
    if (unlimited && raw[key] !== undefined) fail(child(at, key), `an unlimited route counts nothing (remove "${key}" or "unlimited")`);
  }
  if (raw.tiers !== undefined && (unlimited || raw.rules !== undefined))
    fail(child(at, "tiers"), `a route with tiers takes its rules from TIERS (remove "${unlimited ? "unlimited" : "rules"}")`);
  if (!unlimited && raw.rules === undefined && raw.tiers === undefined) fail(at, 'missing key "rules" (or "tiers", or set "unlimited": true)');
  // The route's algorithm is a default for its own rules; tier rules are shared by every route, so it could not apply to them.
  if (raw.tiers !== undefined && raw.algorithm !== undefined)
    fail(child(at, "algorithm"), 'a route with tiers takes its algorithm from TIERS (give a tier\'s rule an "algorithm", or set RATE_LIMIT_ALGORITHM)');
  const tiers = raw.tiers === undefined ? undefined : readTierChoice(raw.tiers, defaults.tiers, child(at, "tiers"));
  const origin = raw.origin === undefined ? defaults.origin : readOriginUrl(raw.origin, child(at, "origin"));
  const rules = unlimited ? [] : tiers ? tiers.tiers[tiers.defaultTier]! : parseRules(raw.rules, child(at, "rules"), algorithm);
  const cost = raw.cost === undefined ? 1 : readInteger(raw.cost, 1, MAX_COST, child(at, "cost"));
  checkCost(cost, tiers ? Object.entries(tiers.tiers) : [["", rules]], child(at, "cost"));
  return {
    pattern,
    scope: raw.name === undefined ? pattern : readRouteName(raw.name, child(at, "name")),
    ...(origin === undefined ? {} : { origin }),
    rules,
    ...(tiers === undefined ? {} : { tiers }),
    unlimited,
    key: raw.key === undefined ? { kind: "ip" } : parseKeySource(raw.key, child(at, "key")),
    cost,
    mode: raw.mode === undefined ? defaults.mode : readChoice(raw.mode, MODES, "mode", child(at, "mode")),
    ...(raw.methods === undefined ? {} : { methods: parseMethods(raw.methods, child(at, "methods")) }),
    count: raw.count === undefined ? "all" : parseCount(raw.count, child(at, "count")),
    allow: raw.allow === undefined ? [] : parseEntries(raw.allow, child(at, "allow")),
    deny: raw.deny === undefined ? [] : parseEntries(raw.deny, child(at, "deny")),
  };
}

/**
 * A request charges `cost` to every rule at once, so a rule that allows fewer per window (a
 * token bucket: fewer than its burst) would refuse every request, with a Retry-After that no wait
 * honours. `groups` are the route's rules, by tier ("" when it has none).
 */
function checkCost(cost: number, groups: ReadonlyArray<readonly [string, readonly Rule[]]>, at: At): void {
  for (const [tier, rules] of groups) {
    const rule = rules.find((candidate) => (candidate.burst ?? candidate.limit) < cost);
    if (!rule) continue;
    const whose = tier === "" ? `rule ${quote(rule.name)}` : `tier ${quote(tier)}'s rule ${quote(rule.name)}`;
    fail(at, `invalid value ${cost} (more than ${whose} allows in a window, ${rule.burst ?? rule.limit}: every request would be refused)`);
  }
}

/** `"tiers": "<default tier>"`: the route decides by the client's tier, this one for clients without. */
function readTierChoice(value: unknown, tiers: Readonly<Record<string, Rule[]>>, at: At): { defaultTier: string; tiers: Readonly<Record<string, Rule[]>> } {
  const names = Object.keys(tiers);
  if (names.length === 0) fail(at, `no tiers to choose from (define them in TIERS, e.g. {"free": "100/1h", "pro": "5000/1h"})`);
  return { defaultTier: readChoice(value, names, "default tier", at), tiers };
}

/**
 * `"10/1s"`, or a list of rules; a lone rule is named `default`, several get distinct names.
 * `refuseKey`, when given, says why these rules may not have their own `key` (tiers).
 */
export function parseRules(value: unknown, at: At, algorithm: AlgorithmName, refuseKey?: string): RouteRule[] {
  if (!Array.isArray(value)) return [parseRule(value, at, algorithm, "default", refuseKey)];
  if (value.length === 0) fail(at, 'expected at least one rule (or set "unlimited": true)');
  const rules = value.map((item, index) =>
    parseRule(item, child(at, index), algorithm, value.length === 1 ? "default" : (ruleTextName(item) ?? `rule-${index}`), refuseKey),
  );
  const names = new Set<string>();
  rules.forEach((rule, index) => {
    if (names.has(rule.name)) fail(child(at, index), `duplicate rule name ${quote(rule.name)} (give each rule a distinct "name")`);
    names.add(rule.name);
  });
  return rules;
}

/**
 * A route's name is in its keys, so it takes a rule's alphabet (no `:` to meet another route's
 * key); the admin API, logs and events call the route of unmatched requests `default`.
 */
function readRouteName(value: unknown, at: At): string {
  const name = readName(value, at);
  if (name === "default") fail(at, 'the name "default" is reserved for requests no route matches (choose another name)');
  return name;
}

function readBoolean(value: unknown, at: At): boolean {
  if (typeof value !== "boolean") fail(at, `expected true or false, got ${quote(value)}`);
  return value;
}
