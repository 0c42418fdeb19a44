/**
 * @module PURE: the admin CLI's command line and environment, checked before any request is sent.
 */
import { parseArgs } from "node:util";
import { usageErrors } from "../cli-usage.ts";

/** Who a `status` or `reset` is about: a normalized client id, or a raw key header value. */
export interface Target {
  /** `client=` (an IP address or id), or `key=` with `--key`. */
  by: "client" | "key";
  value: string;
}

/** One admin API call, as the command line asks for it. */
export type Command = { name: "status" | "reset"; target: Target; route?: string } | { name: "config" };

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
  config                                   the Worker's effective settings (secrets redacted)
  <client> is an IP address or client id; with --key it is the raw key header value.
  The token comes from ${TOKEN_VARIABLE} (the Worker's ADMIN_TOKEN; npm start prints one).
  In a clone of the repository: npm run admin -- <command> [flags].`;

const COMMANDS = ["status", "reset", "config"] as const;

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
  const token = env[TOKEN_VARIABLE] ?? "";
  if (token === "") throw new AdminUsageError(`${TOKEN_VARIABLE} is not set (export the Worker's ADMIN_TOKEN as ${TOKEN_VARIABLE})`);
  return { command, url, token, json: values.json ?? false };
}

function isCommandName(name: string): name is (typeof COMMANDS)[number] {
  return (COMMANDS as readonly string[]).includes(name);
}

function readCommand(name: (typeof COMMANDS)[number], rest: string[], values: { route?: string; key?: boolean }): Command {
  if (name === "config") {
    if (rest.length > 0) throw new AdminUsageError(`config: unexpected argument "${rest[0]}"`);
    for (const flag of ["route", "key"] as const) {
      if (values[flag] !== undefined) throw new AdminUsageError(`config: --${flag} only applies to status and reset`);
    }
    return { name };
  }
  const [value, extra] = rest;
  if (value === undefined || value === "") {
    throw new AdminUsageError(`${name}: missing <client> (an IP address or client id; with --key, the raw key header value)`);
  }
  if (extra !== undefined) throw new AdminUsageError(`${name}: unexpected argument "${extra}"`);
  if (values.route === "") throw new AdminUsageError(`--route: empty route name (omit --route for the default route)`);
  const target: Target = { by: values.key ? "key" : "client", value };
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
