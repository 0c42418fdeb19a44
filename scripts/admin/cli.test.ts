import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CONFIG, RESET, STATUS } from "./fixtures.ts";
import { formatConfig, formatList, formatLists, formatReset, formatStatus, formatTier } from "./format.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));
const TOKEN = "a".repeat(64);
const ROUTES = ["api", "example.com/health"];
const LISTED = [
  { client: "203.0.113.7", list: "deny", ttlSeconds: 600 },
  { client: "key:5d1c", list: "allow", ttlSeconds: null },
] as const;
/** A first page's `next`, as the Worker gives it: the last entry's expiry and its index member. */
const NEXT = "1700000600000:deny:2001:db8::/64";

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
}

/** A Worker that answers like the admin API contract, and records what it was asked. */
function fakeWorker(seen: Seen[], state: { origin?: "html" | "echo" | "missing" | "problem" }): Server {
  return createServer((request, response) => {
    seen.push({ method: request.method!, url: request.url!, authorization: request.headers.authorization });
    const url = new URL(request.url!, "http://worker");
    const answer = (status: number, body: unknown, type = "application/json") => {
      response.writeHead(status, { "content-type": type });
      response.end(typeof body === "string" ? body : JSON.stringify(body));
    };
    const problem = (status: number, title: string, detail: string, own = true) => {
      // The admin API marks its answers; an origin's or the limiter's problem details carry no mark.
      if (own) response.setHeader("x-ratewall-admin", "1");
      answer(status, { type: "about:blank", title, status, detail }, "application/problem+json");
    };
    // Without ADMIN_TOKEN the path is not special: it goes to the origin like any other.
    if (state.origin === "html") return answer(200, "<h1>origin</h1>", "text/html");
    if (state.origin === "missing") return answer(404, "<h1>File not found</h1>", "text/html");
    if (state.origin === "problem") return problem(429, "Too Many Requests", 'Rate limit "default" exceeded; retry after 12 s.', false);
    if (state.origin === "echo") return answer(200, { method: request.method, url: request.url, headers: request.headers });
    if (request.headers.authorization !== `Bearer ${TOKEN}`) return problem(401, "Unauthorized", "missing or wrong bearer token");
    const route = url.searchParams.get("route");
    if (route !== null && !ROUTES.includes(route)) return problem(404, "Not Found", `unknown route "${route}" (routes: ${ROUTES.join(", ")})`);
    const expected = { "/__ratewall/status": "GET", "/__ratewall/reset": "POST", "/__ratewall/config": "GET" }[url.pathname];
    if (expected !== undefined && expected !== request.method) return problem(405, "Method Not Allowed", `use ${expected}`);
    if (url.pathname === "/__ratewall/status") return answer(200, STATUS);
    if (url.pathname === "/__ratewall/reset") return answer(200, RESET);
    if (url.pathname === "/__ratewall/config") return answer(200, CONFIG);
    // Two pages of entries, or of copies, so that the CLI has to pass `next` back as the cursor, as given.
    const cursor = url.searchParams.get("cursor");
    if (cursor !== null && cursor !== NEXT) return problem(400, "Bad Request", `Invalid cursor ${JSON.stringify(cursor)}`);
    const page = cursor === null ? 0 : 1;
    if (url.pathname === "/__ratewall/lists") return answer(200, { entries: [LISTED[page]!], next: page === 0 ? NEXT : null });
    if (url.pathname === "/__ratewall/lists/copy")
      return answer(200, { routes: ["api"], entries: page === 0 ? 3 : 1, copied: 1, next: page === 0 ? NEXT : null });
    const client = url.searchParams.get("client") ?? url.searchParams.get("key")!;
    const list = url.pathname.slice("/__ratewall/".length);
    if ((list === "deny" || list === "allow") && request.method === "POST") {
      const ttl = url.searchParams.get("ttl");
      return answer(200, { client, list, ttlSeconds: ttl === null ? null : Number(ttl) });
    }
    if ((list === "deny" || list === "allow") && request.method === "DELETE") return answer(200, { client, list, deleted: true });
    if (list === "tier" && request.method === "POST") return answer(200, { client, tier: url.searchParams.get("tier") });
    if (list === "tier" && request.method === "DELETE") return answer(200, { client, deleted: false });
    return problem(404, "Not Found", "no such admin path");
  });
}

/** Runs the CLI as `npm run admin` does; resolves with the exit code and both streams, whatever the code. */
function runCli(args: string[], env: Record<string, string | undefined>): Promise<{ code: number; stdout: string; stderr: string }> {
  const { RATEWALL_ADMIN_TOKEN: _ignored, ...rest } = process.env;
  return new Promise((resolve) => {
    execFile(TSX, ["scripts/admin/cli.ts", ...args], { cwd: ROOT, env: { ...rest, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

describe("npm run admin against a Worker", () => {
  const seen: Seen[] = [];
  const state: { origin?: "html" | "echo" | "missing" | "problem" } = {};
  const server = fakeWorker(seen, state);
  let url = "";
  const withToken = { RATEWALL_ADMIN_TOKEN: TOKEN };

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    seen.length = 0;
    delete state.origin;
  });

  it("Should GET the status with the bearer token, the client and the route, and print the table", async () => {
    const result = await runCli(["status", "203.0.113.7", "--route", "api", "--url", url], withToken);
    expect(seen).toEqual([{ method: "GET", url: "/__ratewall/status?client=203.0.113.7&route=api", authorization: `Bearer ${TOKEN}` }]);
    expect(result).toEqual({ code: 0, stdout: `${formatStatus(STATUS)}\n`, stderr: "" });
  }, 30_000);

  it("Should POST a reset of a raw key on the default route, and print what was deleted", async () => {
    const result = await runCli(["reset", "key 42", "--key", "--url", url], withToken);
    expect(seen).toEqual([{ method: "POST", url: "/__ratewall/reset?key=key+42", authorization: `Bearer ${TOKEN}` }]);
    expect(result).toEqual({ code: 0, stdout: `${formatReset(RESET)}\n`, stderr: "" });
  }, 30_000);

  it("Should POST a deny with its TTL and DELETE it with --remove, printing what holds now", async () => {
    const denied = await runCli(["deny", "203.0.113.7", "--ttl", "600", "--url", url], withToken);
    const lifted = await runCli(["deny", "203.0.113.7", "--remove", "--url", url], withToken);
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      "POST /__ratewall/deny?client=203.0.113.7&ttl=600",
      "DELETE /__ratewall/deny?client=203.0.113.7",
    ]);
    expect(denied).toEqual({ code: 0, stdout: `${formatList({ client: "203.0.113.7", list: "deny", ttlSeconds: 600 })}\n`, stderr: "" });
    expect(lifted).toEqual({ code: 0, stdout: "removed client 203.0.113.7 from the deny list\n", stderr: "" });
  }, 30_000);

  it("Should POST an allow of a raw key until removed, and put a client on a tier and take it off", async () => {
    const allowed = await runCli(["allow", "key 42", "--key", "--url", url], withToken);
    const tiered = await runCli(["tier", "203.0.113.7", "pro", "--url", url], withToken);
    const untiered = await runCli(["tier", "203.0.113.7", "--remove", "--url", url], withToken);
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      "POST /__ratewall/allow?key=key+42",
      "POST /__ratewall/tier?client=203.0.113.7&tier=pro",
      "DELETE /__ratewall/tier?client=203.0.113.7",
    ]);
    expect(allowed.stdout).toBe("allowed (uncounted) client key 42 until removed on every route that counts this client\n");
    expect(tiered.stdout).toBe(`${formatTier({ client: "203.0.113.7", tier: "pro" })}\n`);
    expect(untiered).toEqual({ code: 0, stdout: "client 203.0.113.7 had no tier\n", stderr: "" });
  }, 30_000);

  it("Should GET every page of the list entries, each after the previous page's cursor, and print them as one table, or as one JSON answer with --json", async () => {
    const table = await runCli(["lists", "--url", url], withToken);
    const json = await runCli(["lists", "--json", "--url", url], withToken);
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      "GET /__ratewall/lists",
      "GET /__ratewall/lists?cursor=1700000600000%3Adeny%3A2001%3Adb8%3A%3A%2F64",
      "GET /__ratewall/lists",
      "GET /__ratewall/lists?cursor=1700000600000%3Adeny%3A2001%3Adb8%3A%3A%2F64",
    ]);
    expect(table).toEqual({ code: 0, stdout: `${formatLists([...LISTED])}\n`, stderr: "" });
    expect(JSON.parse(json.stdout)).toEqual({ entries: LISTED, next: null });
  }, 30_000);

  it("Should POST every page of the copies, each after the previous page's cursor, and print their sum", async () => {
    const result = await runCli(["lists", "--copy", "--url", url], withToken);
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      "POST /__ratewall/lists/copy",
      "POST /__ratewall/lists/copy?cursor=1700000600000%3Adeny%3A2001%3Adb8%3A%3A%2F64",
    ]);
    expect(result).toEqual({ code: 0, stdout: "wrote 2 copies of 4 entries to route api (the rest were there already)\n", stderr: "" });
  }, 30_000);

  it("Should GET the config and print it as a listing, or the JSON as received with --json", async () => {
    const table = await runCli(["config", "--url", url], withToken);
    const json = await runCli(["config", "--json", "--url", url], withToken);
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual(["GET /__ratewall/config", "GET /__ratewall/config"]);
    expect(table).toEqual({ code: 0, stdout: `${formatConfig(CONFIG)}\n`, stderr: "" });
    expect(json).toEqual({ code: 0, stdout: `${JSON.stringify(CONFIG)}\n`, stderr: "" });
  }, 30_000);

  it("Should exit 1 with the problem's status, title and detail on an unknown route", async () => {
    const result = await runCli(["status", "203.0.113.7", "--route", "apii", "--url", url], withToken);
    expect(result).toEqual({ code: 1, stdout: "", stderr: 'ratewall admin: 404 Not Found: unknown route "apii" (routes: api, example.com/health)\n' });
  }, 30_000);

  it("Should exit 1 with the problem's detail on a wrong token", async () => {
    const result = await runCli(["config", "--url", url], { RATEWALL_ADMIN_TOKEN: "wrong" });
    expect(seen).toEqual([{ method: "GET", url: "/__ratewall/config", authorization: "Bearer wrong" }]);
    expect(result).toEqual({ code: 1, stdout: "", stderr: "ratewall admin: 401 Unauthorized: missing or wrong bearer token\n" });
  }, 30_000);

  it.each([["lists"], ["lists", "--copy"]])(
    "Should exit 1 with the problem's detail when the Worker refuses %s, printing no empty list",
    async (...command) => {
      const result = await runCli([...command, "--url", url], { RATEWALL_ADMIN_TOKEN: "wrong" });
      expect(result).toEqual({ code: 1, stdout: "", stderr: "ratewall admin: 401 Unauthorized: missing or wrong bearer token\n" });
    },
    30_000,
  );

  it.each([
    ["an HTML page", "html", "text/html"],
    ["an echo of the request", "echo", "application/json"],
  ] as const)(
    "Should exit 1 and suspect ADMIN_TOKEN when the origin answers with %s instead of the admin API, printing nothing of it",
    async (_, origin, type) => {
      state.origin = origin;
      const result = await runCli(["status", "203.0.113.7", "--json", "--url", url], withToken);
      expect(result).toEqual({
        code: 1,
        stdout: "",
        stderr: `ratewall admin: ${url} answered 200 with ${type}, not the admin API's status JSON (is ADMIN_TOKEN set on the Worker?)\n`,
      });
    },
    30_000,
  );

  it.each([
    ["the origin refuses the path with its own error page, printing nothing of it", "missing", "404 Not Found with text/html"],
    [
      "problem details come from anything but the admin API (the limiter's 429, an origin's API)",
      "problem",
      "429 Too Many Requests with application/problem+json",
    ],
  ] as const)(
    "Should exit 1 and suspect ADMIN_TOKEN when %s",
    async (_, origin, answered) => {
      state.origin = origin;
      const result = await runCli(["status", "203.0.113.7", "--url", url], withToken);
      expect(result).toEqual({
        code: 1,
        stdout: "",
        stderr: `ratewall admin: ${url} answered ${answered}, not the admin API's status JSON (is ADMIN_TOKEN set on the Worker?)\n`,
      });
    },
    30_000,
  );

  it("Should exit 2 with the usage, sending nothing, when RATEWALL_ADMIN_TOKEN is unset", async () => {
    const result = await runCli(["status", "203.0.113.7", "--url", url], {});
    expect(seen).toEqual([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^ratewall admin: RATEWALL_ADMIN_TOKEN is not set .*\nUsage: ratewall-admin <command>/);
  }, 30_000);

  it("Should exit 1 naming the URL when nothing listens there", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await runCli(["config", "--url", `http://127.0.0.1:${port}`], withToken);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `ratewall admin: cannot reach http://127.0.0.1:${port} (connect ECONNREFUSED 127.0.0.1:${port}); is the Worker running (npm start)?\n`,
    );
  }, 30_000);
});
