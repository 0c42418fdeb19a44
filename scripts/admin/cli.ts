#!/usr/bin/env node
/**
 * @module `npm run admin`: the Worker's admin API (`/__ratewall/`) from a terminal. Exits 0 on
 * success, 1 when the Worker refuses or cannot be reached, 2 on a usage error.
 *
 * @example
 * RATEWALL_ADMIN_TOKEN=… npm run admin -- status 203.0.113.7 --route api
 */
import { AdminUsageError, parseAdminArgs, USAGE, type Command } from "./args.ts";
import { type CopyAnswer, type ListAnswer, type ListsAnswer, readAnswer, type ResetAnswer, type StatusAnswer, type TierAnswer } from "./answers.ts";
import { versionAsked } from "../cli-usage.ts";
import { callAdmin } from "./client.ts";
import { formatConfig, formatCopy, formatList, formatLists, formatProblem, formatReset, formatStatus, formatTier } from "./format.ts";

async function main(): Promise<number> {
  const version = versionAsked(process.argv.slice(2));
  if (version) {
    console.log(version);
    return 0;
  }
  const args = parseAdminArgs(process.argv.slice(2), process.env);
  if (!args) {
    console.log(USAGE);
    return 0;
  }
  const { command } = args;
  if (command.name === "lists") return lists(args.url, args.token, command, args.json);
  const answer = await call(args.url, args.token, command);
  if (!answer) return 1;
  console.log(args.json ? answer.text.trimEnd() : render(command, answer.body));
  return 0;
}

/** The answer, parsed and as received, or undefined once the refusal or the wrong answer is printed. */
async function call(url: string, token: string, command: Command): Promise<{ body: Record<string, unknown>; text: string } | undefined> {
  const answer = await callAdmin(url, token, command);
  const failed = answer.status < 200 || answer.status > 299;
  // The admin API answers every error as problem details (RFC 9457), marked as its own: the
  // limiter's 429 and an origin's API answer problem details too.
  if (failed && answer.fromAdminApi && /^application\/problem\+json\b/i.test(answer.contentType)) {
    console.error(formatProblem(answer.status, answer.statusText, answer.body, answer.retryAfter));
    return undefined;
  }
  const body = failed ? undefined : readAnswer(command.name, answer.contentType, answer.body);
  if (body) return { body, text: answer.body };
  // Without ADMIN_TOKEN the Worker has no admin API, and the path goes to the origin like any
  // other: what came back is the origin's, and not printed (it may be a page, or anything).
  const status = failed ? `${answer.status} ${answer.statusText}` : String(answer.status);
  console.error(
    `ratewall admin: ${url} answered ${status} with ${answer.contentType || "no content type"}, not the admin API's ${command.name} JSON (is ADMIN_TOKEN set on the Worker?)`,
  );
  return undefined;
}

/** Every page of `lists` (or of `lists --copy`), printed as one answer. */
async function lists(url: string, token: string, command: Extract<Command, { name: "lists" }>, json: boolean): Promise<number> {
  const entries: ListsAnswer["entries"] = [];
  const copies: CopyAnswer = { routes: [], entries: 0, copied: 0, next: null };
  let cursor: string | null | undefined;
  while (cursor !== null) {
    const body: Record<string, unknown> | undefined = (await call(url, token, { ...command, cursor }))?.body;
    if (!body) return 1;
    if (command.copy) {
      const page = body as unknown as CopyAnswer;
      Object.assign(copies, { routes: page.routes, entries: copies.entries + page.entries, copied: copies.copied + page.copied });
    } else entries.push(...(body as unknown as ListsAnswer).entries);
    cursor = (body as { next: string | null }).next;
  }
  const whole = command.copy ? copies : { entries, next: null };
  console.log(json ? JSON.stringify(whole) : command.copy ? formatCopy(copies) : formatLists(entries));
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
