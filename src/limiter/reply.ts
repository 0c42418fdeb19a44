/**
 * @module The script's reply, turned into a {@link Decision}. The layout is the one every limiter
 * script shares (./assemble-script.ts): verdict, the deciding group (tier), the list entry's TTL,
 * then per rule of that group ok, remaining, reset at (ms), retry in (ms). The in-memory model
 * produces the same flat array, so both paths share this parser.
 */
import { RedisRestError } from "../errors.ts";
import type { Plan } from "./plan.ts";
import type { Decision, RuleOutcome } from "./types.ts";

const FIELDS_PER_RULE = 4;
const HEAD = 3;

/** The verdicts of a reply's first field. */
const VERDICT = { refused: 0, allowed: 1, denied: 2, allowListed: 3 } as const;

/**
 * Parses a reply for `plan`. Throws {@link RedisRestError} (`reply`) when the shape is not the
 * expected one, e.g. a script from another version under the same SHA1.
 *
 * A client on the deny list is refused (`reason: "deny-list"`, with `retryAt` when the entry
 * expires); one on the allow list is admitted uncounted (`reason: "allow-list"`). A decision has
 * no rules then; a status reply has them as well. With `clients` (one per rule: a route whose rules
 * count different clients), the decision names the deciding rule's client and each refused one.
 *
 * @example
 * parseReply([1, 1, 0, 1, 99, 1_700_000_060_000, 0], plan, 1_700_000_000_000)
 * // { allowed: true, rule: "default", rules: [{ rule: "default", limit: 100, remaining: 99, … }] }
 */
export function parseReply(reply: unknown, plan: Plan, now: number, clients?: readonly string[]): Decision {
  // Plain loops: this runs on every decision, and the callbacks of every/forEach cost more than
  // the work they do on a reply of a few integers.
  const numbers = isIntegerArray(reply) ? reply : undefined;
  const group = numbers && plan.groups[numbers[1]! - 1];
  const listed = numbers?.[0] === VERDICT.denied || numbers?.[0] === VERDICT.allowListed;
  const counted = numbers?.[0] === VERDICT.refused || numbers?.[0] === VERDICT.allowed;
  if (!numbers || !group || !(numbers.length === HEAD + FIELDS_PER_RULE * group.rules.length || (listed && numbers.length === HEAD)) || !(listed || counted)) {
    throw unexpected(reply);
  }
  const verdict = numbers[0]!;
  const listTtlMs = numbers[2]!;
  const outcomes: RuleOutcome[] = [];
  let refusedBy = -1;
  let retryMs = 0;
  const refusedClients = clients && new Map<string, { client: string; rule: string; retryAt: number }>();
  if (numbers.length > HEAD) {
    for (let i = 0; i < group.rules.length; i++) {
      const rule = group.rules[i]!;
      const at = HEAD + FIELDS_PER_RULE * i;
      if (numbers[at]! > 1 || numbers[at]! < 0 || numbers[at + 1]! < 0 || numbers[at + 3]! < 0) throw unexpected(reply);
      outcomes.push({
        rule: rule.name,
        limit: rule.algorithm === "token-bucket" ? (rule.burst ?? rule.limit) : rule.limit,
        remaining: numbers[at + 1]!,
        resetAt: numbers[at + 2]!,
        windowMs: rule.windowMs,
      });
      if (numbers[at] !== 1) {
        // The deciding rule is the one whose retry is latest: the Retry-After, the legacy
        // X-RateLimit-Reset and the 429's detail then all name the same wait.
        const ruleRetryMs = numbers[at + 3]!;
        if (refusedBy === -1 || ruleRetryMs > retryMs) refusedBy = i;
        retryMs = Math.max(retryMs, ruleRetryMs);
        const client = clients?.[i];
        if (refusedClients && client !== undefined) {
          const retryAt = now + ruleRetryMs;
          const known = refusedClients.get(client);
          if (!known || retryAt > known.retryAt) refusedClients.set(client, { client, rule: rule.name, retryAt });
        }
      }
    }
  }
  // A counted verdict is its rules' (assemble-script.ts): refused exactly when one of them refused.
  if (counted && outcomes.length > 0 && (verdict === VERDICT.refused) !== refusedBy >= 0) throw unexpected(reply);
  const allowed = verdict === VERDICT.allowed || verdict === VERDICT.allowListed;
  const deciding = outcomes.length === 0 ? undefined : refusedBy >= 0 && !allowed ? refusedBy : fewestRemaining(outcomes);
  const decision: Decision = { allowed, rule: deciding === undefined ? "" : group.rules[deciding]!.name, rules: outcomes };
  if (group.name !== "") decision.tier = group.name;
  if (clients !== undefined && deciding !== undefined) decision.client = clients[deciding];
  if (refusedClients && refusedClients.size > 0 && !allowed) decision.refusedClients = [...refusedClients.values()];
  if (listed) {
    decision.reason = verdict === VERDICT.denied ? "deny-list" : "allow-list";
    // An entry without a TTL (-1) lasts until an operator removes it: no time to announce.
    if (listTtlMs > 0) decision.listExpiresAt = now + listTtlMs;
    if (verdict === VERDICT.denied && listTtlMs > 0) {
      decision.retryAt = now + listTtlMs;
      decision.retryAfter = Math.max(1, Math.ceil(listTtlMs / 1000));
    }
  } else if (!allowed) {
    // Nothing was charged, and without new requests every rule's capacity only grows, so the
    // latest of the refusing rules' retry times is the earliest a retry can pass them all.
    decision.retryAt = now + retryMs;
    decision.retryAfter = Math.max(1, Math.ceil(retryMs / 1000));
  }
  return decision;
}
/** Index of the outcome with the fewest `remaining`; the first one on a tie. */
function fewestRemaining(outcomes: readonly RuleOutcome[]): number {
  let fewest = 0;
  for (let i = 1; i < outcomes.length; i++) if (outcomes[i]!.remaining < outcomes[fewest]!.remaining) fewest = i;
  return fewest;
}

function isIntegerArray(reply: unknown): reply is number[] {
  if (!Array.isArray(reply)) return false;
  for (let i = 0; i < reply.length; i++) if (!Number.isSafeInteger(reply[i])) return false;
  return true;
}

/** Anything else is no reply of these scripts (another version under the same SHA1, a broken proxy). */
function unexpected(reply: unknown): RedisRestError {
  return new RedisRestError("reply", "evalsha", `unexpected limiter reply ${JSON.stringify(reply).slice(0, 200)}`);
}
