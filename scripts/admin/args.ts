/**
 * @module PURE: the admin CLI's command line and environment, checked before any request is sent.
 */
import { parseArgs } from "node:util";
import { firstRefused, trimHeaderValue } from "../../src/headers/header-value.ts";
import { usageErrors } from "../cli-usage.ts";

/** Who a command is about: a normalized client id, or a raw key header value. */
export interface Target {
  /** `client=` (an IP address or id), or `key=` with `--key`. */
  by: "client" | "key";
  value: string;
}

/**
 * One admin API call, as the command line asks for it. `deny` and `allow` act on every route that
 * counts requests, `tier` on every route with tiers; `remove` takes the entry away instead of writing it.
 */
export type Command =
  | { name: "status" | "reset"; target: Target; route?: string }
  | { name: "deny" | "allow"; target: Target; ttlSeconds?: number; remove?: true }
  | { name: "tier"; target: Target; tier: string }
  | { name: "tier"; target: Target; remove: true }
  | { name: "lists"; copy?: true; cursor?: string }
  | { name: "config" };

/** What the CLI runs. */
export interface AdminArgs {
  command: Command;
  /** The Worker's origin, without a trailing slash. @default "http://127.0.0.1:8787" */
  url: string;
  /** From `RATEWALL_ADMIN_TOKEN` only: a `--token` flag would show the secret in `ps` and shell history. */
  token: string;
  /** Print the API's JSON as received instead of a table. */
  json: boolean;
}

/** A bad command line or a missing setting; the CLI prints it with the usage and exits 2. */
export class AdminUsageError extends Error {
  override readonly name = "AdminUsageError";
}

/** The variable the bearer token is read from. */
const TOKEN_VARIABLE = "RATEWALL_ADMIN_TOKEN";

/** The usage text printed by `--help` and after a usage error. */
export const USAGE = `Usage: ratewall-admin <command> [--url http://127.0.0.1:8787] [--json]
  status <client> [--route NAME] [--key]   the client's quota on a route (default: the default route)
  reset <client> [--route NAME] [--key]    deletes the client's counters on that route
  deny <client> [--ttl SECONDS] [--key]    refuses the client (403) on every route that counts it, until removed or for SECONDS
  allow <client> [--ttl SECONDS] [--key]   lets the client through uncounted on every route that counts it, until removed or for SECONDS
  tier <client> <tier> [--key]             puts the client on a tier of TIERS
  deny|allow|tier <client> --remove        takes the entry away again
  lists                                    every deny and allow entry, soonest to expire first
  lists --copy                             copies the entries to multi-key routes deployed after them
  config                                   the Worker's effective settings (secrets redacted)
  <client> is an IP address or client id; with --key it is the raw key header value. For a cookie or
  query value, deny, allow and tier take the id (cookie:<hash>) that status <value> --key --route NAME prints.
  Unlimited routes make no Redis call and never read a deny or allow entry: only ALLOW and DENY apply there.
  The token comes from ${TOKEN_VARIABLE} (the Worker's ADMIN_TOKEN; npm start prints one).
  --version prints ratewall's version.
  In a clone of the repository: npm run admin -- <command> [flags].`;

const COMMANDS = ["status", "reset", "deny", "allow", "tier", "lists", "config"] as const;
/** The commands each flag that names a part of a command applies to, for the usage error. */
const FLAG_COMMANDS = {
  route: ["status", "reset"],
  key: ["status", "reset", "deny", "allow", "tier"],
  ttl: ["deny", "allow"],
  remove: ["deny", "allow", "tier"],
  copy: ["lists"],
} as const;

/**
 * Parses the command line, with the token from `env`; `undefined` means `--help` was asked.
 *
 * @example
 * parseAdminArgs(["status", "203.0.113.7", "--route", "api"], { RATEWALL_ADMIN_TOKEN: "…" });
 * // → { command: { name: "status", target: { by: "client", value: "203.0.113.7" }, route: "api" }, url: "http://127.0.0.1:8787", token: "…", json: false }
 */
export function parseAdminArgs(argv: string[], env: Record<string, string | undefined>): AdminArgs | undefined {
  const { values, positionals } = usageErrors(AdminUsageError, () =>
    parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        url: { type: "string" },
        route: { type: "string" },
        key: { type: "boolean" },
        ttl: { type: "string" },
        remove: { type: "boolean" },
        copy: { type: "boolean" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }),
  );
  if (values.help) return undefined;
  const [name, ...rest] = positionals;
  if (name === undefined) throw new AdminUsageError(`missing command (expected ${COMMANDS.join(", ")})`);
  if (!isCommandName(name)) throw new AdminUsageError(`unknown command "${name}" (expected ${COMMANDS.join(", ")})`);
  const command = readCommand(name, rest, values);
  const url = readUrl(values.url ?? "http://127.0.0.1:8787");
  // Trimmed and checked as the Worker reads ADMIN_TOKEN (src/settings.ts): otherwise fetch refuses
  // the header, which would read as a Worker that cannot be reached.
  const given = env[TOKEN_VARIABLE] ?? "";
  const token = trimHeaderValue(given);
  const hint = `(export the Worker's ADMIN_TOKEN as ${TOKEN_VARIABLE})`;
  if (given === "") throw new AdminUsageError(`${TOKEN_VARIABLE} is not set ${hint}`);
  if (token === "") throw new AdminUsageError(`${TOKEN_VARIABLE} holds only spaces or line breaks ${hint}`);
  const refused = firstRefused(token, (code) => code > 0x20 && code < 0x7f);
  if (refused)
    throw new AdminUsageError(`${TOKEN_VARIABLE} contains ${refused.where}, which a Bearer token cannot carry (the Worker's ADMIN_TOKEN is visible ASCII)`);
  return { command, url, token, json: values.json ?? false };
}

function isCommandName(name: string): name is (typeof COMMANDS)[number] {
  return (COMMANDS as readonly string[]).includes(name);
}

function readCommand(
  name: (typeof COMMANDS)[number],
  rest: string[],
  values: { route?: string; key?: boolean; ttl?: string; remove?: boolean; copy?: boolean },
): Command {
  for (const flag of Object.keys(FLAG_COMMANDS) as Array<keyof typeof FLAG_COMMANDS>) {
    const takers: readonly string[] = FLAG_COMMANDS[flag];
    if (values[flag] !== undefined && !takers.includes(name)) {
      throw new AdminUsageError(`${name}: --${flag} only applies to ${takers.join(", ").replace(/, ([^,]+)$/, " and $1")}`);
    }
  }
  if (name === "config" || name === "lists") {
    if (rest.length > 0) throw new AdminUsageError(`${name}: unexpected argument "${rest[0]}"`);
    return name === "lists" && values.copy ? { name, copy: true } : { name };
  }
  const [value, ...more] = rest;
  if (value === undefined || value === "") {
    throw new AdminUsageError(`${name}: missing <client> (an IP address or client id; with --key, the raw key header value)`);
  }
  const target: Target = { by: values.key ? "key" : "client", value };
  const remove = values.remove === true;
  if (name === "tier" && !remove) {
    const [tier, extra] = more;
    if (tier === undefined || tier === "") throw new AdminUsageError("tier: missing <tier> (a tier of TIERS; --remove takes the client's tier away)");
    if (extra !== undefined) throw new AdminUsageError(`tier: unexpected argument "${extra}"`);
    return { name, target, tier };
  }
  if (name === "tier" && more.length > 0) {
    throw new AdminUsageError(`tier: --remove takes no <tier> (got "${more[0]}"): it takes the client's tier away, whichever it is`);
  }
  if (more.length > 0) throw new AdminUsageError(`${name}: unexpected argument "${more[0]}"`);
  if (name === "tier") return { name, target, remove: true };
  if (name === "deny" || name === "allow") {
    if (remove && values.ttl !== undefined) throw new AdminUsageError(`${name}: --ttl and --remove do not go together`);
    if (remove) return { name, target, remove: true };
    if (values.ttl === undefined) return { name, target };
    if (!/^[1-9][0-9]{0,14}$/.test(values.ttl)) throw new AdminUsageError(`--ttl: invalid "${values.ttl}" (expected whole seconds, at least 1)`);
    return { name, target, ttlSeconds: Number(values.ttl) };
  }
  if (values.route === "") throw new AdminUsageError(`--route: empty route name (omit --route for the default route)`);
  return values.route === undefined ? { name, target } : { name, target, route: values.route };
}

/** Only an origin: the admin API lives at `/__ratewall/` on the Worker's own origin. */
function readUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    throw new AdminUsageError(`--url: invalid URL "${text}" (expected the Worker's origin, http(s)://host[:port])`);
  }
  return url.origin;
}
