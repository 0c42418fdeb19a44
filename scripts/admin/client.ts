/**
 * @module The admin CLI's one HTTP call: a command → method, path and query → the Worker's answer.
 */
import type { Command } from "./args.ts";

/** What the Worker answered, body unparsed: `--json` prints it as received. */
export interface AdminAnswer {
  status: number;
  statusText: string;
  contentType: string;
  retryAfter: string | null;
  body: string;
}

/** Long enough for a cold `wrangler dev`, short enough that a black-holed host does not hang a terminal. */
const TIMEOUT_MS = 10_000;

/**
 * The request a command makes.
 *
 * @example
 * adminRequest({ name: "reset", target: { by: "key", value: "k1" }, route: "api" });
 * // → { method: "POST", path: "/__ratewall/reset?key=k1&route=api" }
 */
export function adminRequest(command: Command): { method: "GET" | "POST"; path: string } {
  if (command.name === "config") return { method: "GET", path: "/__ratewall/config" };
  const query = new URLSearchParams({ [command.target.by]: command.target.value });
  if (command.route !== undefined) query.set("route", command.route);
  return { method: command.name === "reset" ? "POST" : "GET", path: `/__ratewall/${command.name}?${query}` };
}

/**
 * Sends the command to the Worker at `url` with the bearer token; any HTTP answer resolves, a
 * network failure rejects with an error that names the URL.
 */
export async function callAdmin(url: string, token: string, command: Command): Promise<AdminAnswer> {
  const { method, path } = adminRequest(command);
  let response: Response;
  try {
    response = await fetch(url + path, { method, headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    throw new Error(`cannot reach ${url} (${reason(error)}); is the Worker running (npm start)?`);
  }
  return {
    status: response.status,
    statusText: response.statusText,
    contentType: response.headers.get("content-type") ?? "",
    retryAfter: response.headers.get("retry-after"),
    body: await response.text(),
  };
}

/** undici hides the useful part ("connect ECONNREFUSED 127.0.0.1:8787") in `cause`. */
function reason(error: unknown): string {
  if (error instanceof Error && error.name === "TimeoutError") return `no answer within ${TIMEOUT_MS / 1000} s`;
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
