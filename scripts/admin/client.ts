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
  /** The admin API marks its answers (`x-ratewall-admin`); the limiter's and an origin's carry no mark. */
  fromAdminApi: boolean;
  body: string;
}

/** Long enough for a cold `wrangler dev`, short enough that a black-holed host does not hang a terminal. */
const TIMEOUT_MS = 10_000;

/**
 * The request a command makes: `--remove` is the endpoint's `DELETE`.
 *
 * @example
 * adminRequest({ name: "reset", target: { by: "key", value: "k1" }, route: "api" });
 * // → { method: "POST", path: "/__ratewall/reset?key=k1&route=api" }
 * adminRequest({ name: "deny", target: { by: "client", value: "203.0.113.7" }, ttlSeconds: 600 });
 * // → { method: "POST", path: "/__ratewall/deny?client=203.0.113.7&ttl=600" }
 * adminRequest({ name: "lists", copy: true, cursor: "inf:deny:203.0.113.7" });
 * // → { method: "POST", path: "/__ratewall/lists/copy?cursor=inf%3Adeny%3A203.0.113.7" }
 */
export function adminRequest(command: Command): { method: "GET" | "POST" | "DELETE"; path: string } {
  if (command.name === "config") return { method: "GET", path: "/__ratewall/config" };
  if (command.name === "lists") {
    const page = command.cursor === undefined ? "" : `?${new URLSearchParams({ cursor: command.cursor })}`;
    return command.copy ? { method: "POST", path: `/__ratewall/lists/copy${page}` } : { method: "GET", path: `/__ratewall/lists${page}` };
  }
  const query = new URLSearchParams({ [command.target.by]: command.target.value });
  const at = (method: "GET" | "POST" | "DELETE") => ({ method, path: `/__ratewall/${command.name}?${query}` });
  switch (command.name) {
    case "status":
    case "reset":
      if (command.route !== undefined) query.set("route", command.route);
      return at(command.name === "reset" ? "POST" : "GET");
    case "deny":
    case "allow":
      if (command.ttlSeconds !== undefined) query.set("ttl", String(command.ttlSeconds));
      return at(command.remove ? "DELETE" : "POST");
    case "tier":
      if ("tier" in command) query.set("tier", command.tier);
      return at("remove" in command ? "DELETE" : "POST");
  }
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
    fromAdminApi: response.headers.get("x-ratewall-admin") === "1",
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
