/**
 * @module PURE: the admin API's answers as the lead's contract shapes them, and a check that a 2xx
 * JSON answer has that shape. Without ADMIN_TOKEN the Worker has no admin API and `/__ratewall/`
 * goes to the origin like any other path, which may well answer 200 with JSON of its own.
 */
import type { Command } from "./args.ts";

/** One rule's quota in a `GET /__ratewall/status` answer. */
export interface RuleStatus {
  name: string;
  algorithm: string;
  limit: number;
  windowMs: number;
  remaining: number;
  /** ms until the rule resets, as `RateLimit`'s `t` counts it: a fixed window's end even when nothing of it is spent. */
  resetMs: number;
}

/** `GET /__ratewall/status`. */
export interface StatusAnswer {
  client: string;
  route: string;
  /** On a route with tiers: the tier whose rules apply to the client. */
  tier?: string | null;
  /** What the settings' `ALLOW`/`DENY` (the route's, then the global) decide for the client, before anything else. */
  staticList?: "deny" | "allow" | null;
  /** The client's dynamic list entry, which decides before any rule. */
  list?: "deny" | "allow" | null;
  /** ms until that entry expires; null when it never does. */
  listTtlMs?: number | null;
  rules: RuleStatus[];
}

/** `POST /__ratewall/reset`. */
export interface ResetAnswer {
  client: string;
  route: string;
  /** How many Redis keys were deleted. */
  deleted: number;
}

/**
 * Where a new entry is met (absent from Workers older than these fields): `routes` count the
 * client; `fallbackRoutes`, keyed by something else, count an address only for its requests
 * without their key.
 */
export interface MetOn {
  routes?: string[];
  fallbackRoutes?: string[];
}

/**
 * `POST` (`ttlSeconds`; `was`, the list the client was on before; {@link MetOn}, among the limited
 * routes) or `DELETE` (`deleted`) `/__ratewall/deny` and `/__ratewall/allow`.
 */
export type ListAnswer = { client: string; list: "deny" | "allow" } & (
  | ({ ttlSeconds: number | null; was?: "deny" | "allow" | null } & MetOn)
  | { deleted: boolean }
);

/** `POST` (`tier`; `was`, the tier it replaced; {@link MetOn}, among the routes with tiers) or `DELETE` (`deleted`) `/__ratewall/tier`. */
export type TierAnswer = { client: string } & (({ tier: string; was?: string | null } & MetOn) | { deleted: boolean });

/** `GET /__ratewall/lists`: a page of the entries; `next` is the next page's cursor, or null. */
export interface ListsAnswer {
  entries: { client: string; list: "deny" | "allow"; ttlSeconds: number | null }[];
  next: string | null;
}

/** `POST /__ratewall/lists/copy`: the multi-key routes, and how many entries of the page got how many copies. */
export interface CopyAnswer {
  routes: string[];
  entries: number;
  copied: number;
  next: string | null;
}

/** `GET /__ratewall/config`: the effective settings, tokens already "[redacted]" by the Worker. */
export type ConfigAnswer = Record<string, unknown>;

/**
 * The parsed answer when it is JSON (by content type and body) with the fields the CLI reads from
 * `command`'s answer, else `undefined`. The config only needs a default route: its fields may grow.
 *
 * @example
 * readAnswer("reset", "application/json", '{"client":"c1","route":"default","deleted":0}'); // → { client: "c1", … }
 * readAnswer("status", "application/json", '{"method":"GET","url":"/__ratewall/status"}'); // → undefined: an echo origin
 */
export function readAnswer(command: Command["name"], contentType: string, text: string): Record<string, unknown> | undefined {
  if (!/^application\/([\w.+-]+\+)?json\b/.test(contentType)) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const answer = body as Record<string, unknown>;
  return hasFields(command, answer) ? answer : undefined;
}

function hasFields(command: Command["name"], answer: Record<string, unknown>): boolean {
  if (command === "config") return typeof answer.defaultRoute === "object" && answer.defaultRoute !== null;
  if (command === "lists")
    return (typeof answer.next === "string" || answer.next === null) && (Array.isArray(answer.entries) || typeof answer.copied === "number");
  if (typeof answer.client !== "string") return false;
  if (command === "deny" || command === "allow") {
    return answer.list === command && (typeof answer.ttlSeconds === "number" || answer.ttlSeconds === null || typeof answer.deleted === "boolean");
  }
  if (command === "tier") return typeof answer.tier === "string" || typeof answer.deleted === "boolean";
  const about = typeof answer.route === "string";
  if (command === "reset") return about && typeof answer.deleted === "number";
  return about && Array.isArray(answer.rules);
}
