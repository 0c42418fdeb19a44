/**
 * @module PURE: the settings as `GET /__ratewall/config` shows them: as the operator wrote them
 * where the Worker keeps a compiled form (keys as `cookie:sid` or `[ip, header:x-api-key]`, list
 * entries as `ip:10.0.0.0/8`; an IPv6 network is a BigInt, which JSON cannot carry at all), and
 * with both secrets replaced.
 */
import { formatKeySource } from "../config/key-source.ts";
import { formatListEntry } from "../config/lists.ts";
import type { ListEntry, RouteRule, RouteSettings, Settings } from "../config/types.ts";

const REDACTED = "[redacted]";

/**
 * The config answer's body, ready for `Response.json`.
 *
 * @example
 * configAnswer(settings).deny; // ["ip:2001:db8::/32", "country:RU"]
 * configAnswer(settings).redis.token; // "[redacted]"
 */
export function configAnswer(settings: Settings) {
  return {
    ...settings,
    redis: { ...settings.redis, token: REDACTED },
    ...(settings.adminToken === undefined ? {} : { adminToken: REDACTED }),
    defaultRoute: routeAnswer(settings.defaultRoute),
    routes: settings.routes.map(routeAnswer),
    allow: entries(settings.allow),
    deny: entries(settings.deny),
  };
}

function routeAnswer(route: RouteSettings) {
  return { ...route, key: formatKeySource(route.key), rules: route.rules.map(ruleAnswer), allow: entries(route.allow), deny: entries(route.deny) };
}

function ruleAnswer(rule: RouteRule) {
  return rule.key === undefined ? rule : { ...rule, key: formatKeySource(rule.key) };
}

function entries(list: readonly ListEntry[]): string[] {
  return list.map(formatListEntry);
}
