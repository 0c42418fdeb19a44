/**
 * @module `npm run admin`: the Worker's admin API (`/__ratewall/`) from a terminal. Exits 0 on
 * success, 1 when the Worker refuses or cannot be reached, 2 on a usage error.
 *
 * @example
 * RATEWALL_ADMIN_TOKEN=… npm run admin -- status 203.0.113.7 --route api
 */
import { AdminUsageError, parseAdminArgs, USAGE, type Command } from "./args.ts";
import { type AdminAnswer, callAdmin } from "./client.ts";
import { type ConfigAnswer, formatConfig, formatProblem, formatReset, formatStatus, type ResetAnswer, type StatusAnswer } from "./format.ts";

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
  // Without ADMIN_TOKEN the Worker has no admin API, and the path goes to the origin like any other.
  if (!/^application\/([\w.+-]+\+)?json\b/.test(answer.contentType)) {
    console.error(`ratewall admin: ${args.url} answered ${answer.status} with ${answer.contentType || "no content type"}, not the admin API's JSON (is ADMIN_TOKEN set on the Worker?)`);
    return 1;
  }
  console.log(args.json ? answer.body.trimEnd() : render(args.command, answer));
  return 0;
}

function render(command: Command, answer: AdminAnswer): string {
  const body: unknown = JSON.parse(answer.body);
  if (command.name === "status") return formatStatus(body as StatusAnswer);
  if (command.name === "reset") return formatReset(body as ResetAnswer);
  return formatConfig(body as ConfigAnswer);
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
