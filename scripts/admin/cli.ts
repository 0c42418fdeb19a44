#!/usr/bin/env node
/**
 * @module `npm run admin`: the Worker's admin API (`/__ratewall/`) from a terminal. Exits 0 on
 * success, 1 when the Worker refuses or cannot be reached, 2 on a usage error.
 *
 * @example
 * RATEWALL_ADMIN_TOKEN=… npm run admin -- status 203.0.113.7 --route api
 */
import { AdminUsageError, parseAdminArgs, USAGE, type Command } from "./args.ts";
import { type ListAnswer, readAnswer, type ResetAnswer, type StatusAnswer, type TierAnswer } from "./answers.ts";
import { callAdmin } from "./client.ts";
import { formatConfig, formatList, formatProblem, formatReset, formatStatus, formatTier } from "./format.ts";

async function main(): Promise<number> {
  const args = parseAdminArgs(process.argv.slice(2), process.env);
  if (!args) {
    console.log(USAGE);
    return 0;
  }
  const answer = await callAdmin(args.url, args.token, args.command);
  if (answer.status < 200 || answer.status > 299) {
    console.error(formatProblem(answer.status, answer.statusText, answer.body, answer.retryAfter));
    return 1;
  }
  const body = readAnswer(args.command.name, answer.contentType, answer.body);
  if (!body) {
    // Without ADMIN_TOKEN the Worker has no admin API, and the path goes to the origin like any other.
    console.error(
      `ratewall admin: ${args.url} answered ${answer.status} with ${answer.contentType || "no content type"}, not the admin API's ${args.command.name} JSON (is ADMIN_TOKEN set on the Worker?)`,
    );
    return 1;
  }
  console.log(args.json ? answer.body.trimEnd() : render(args.command, body));
  return 0;
}

function render(command: Command, body: Record<string, unknown>): string {
  if (command.name === "status") return formatStatus(body as unknown as StatusAnswer);
  if (command.name === "reset") return formatReset(body as unknown as ResetAnswer);
  if (command.name === "deny" || command.name === "allow") return formatList(body as unknown as ListAnswer);
  if (command.name === "tier") return formatTier(body as unknown as TierAnswer);
  return formatConfig(body);
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    if (error instanceof AdminUsageError) {
      console.error(`ratewall admin: ${error.message}\n${USAGE}`);
      process.exitCode = 2;
    } else {
      console.error(`ratewall admin: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    }
  },
);
