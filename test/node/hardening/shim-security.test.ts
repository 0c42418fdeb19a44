import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startRedisServer, type RedisServer } from "../../../scripts/local/redis-server.ts";
import { spawnShim, type ShimProcess } from "../../../scripts/local/shim-process.ts";
import { rawHttp, send } from "./processes.ts";

// The shim runs as its own process, from its CLI, as a user would run it: a crash is an exit.
const TOKEN = "3f9c2a7d0b8e41f6a5c9d2e7b1f04a68";
const H = { authorization: `Bearer ${TOKEN}` };
let redis: RedisServer;
let direct: Redis;
let shim: ShimProcess;

beforeAll(async () => {
  redis = await startRedisServer();
  direct = new Redis(redis.url);
  shim = await spawnShim(["--redis-url", redis.url, "--token", TOKEN]);
});
afterEach(() => expect(shim.child.exitCode, `the shim exited:\n${shim.output()}`).toBeNull());
afterAll(async () => {
  await shim?.stop();
  direct?.disconnect();
  await redis?.stop();
});

const key = (name: string) => `hardening:${name}:${Math.random().toString(36).slice(2)}`;

describe("authentication", () => {
  const wrong: Array<[string, Record<string, string>, string?]> = [
    ["no Authorization header", {}],
    ["an empty header", { authorization: "" }],
    ["Basic credentials", { authorization: `Basic ${Buffer.from(`user:${TOKEN}`).toString("base64")}` }],
    ["Bearer without a token", { authorization: "Bearer" }],
    ["Bearer and spaces", { authorization: "Bearer    " }],
    ["the bare token", { authorization: TOKEN }],
    ["another scheme", { authorization: `Token ${TOKEN}` }],
    ["the token with one more character", { authorization: `Bearer ${TOKEN}0` }],
    ["the token with one character less", { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
    ["the token in upper case", { authorization: `Bearer ${TOKEN.toUpperCase()}` }],
    ["the token with a prefix", { authorization: `Bearer x${TOKEN}` }],
    ["a very long token", { authorization: `Bearer ${TOKEN.repeat(200)}` }],
    ["a non-ASCII token", { authorization: `Bearer ${Buffer.from("é€🔑").toString("latin1")}` }],
    ["a wrong _token, even beside the right header", H, "?_token=wrong"],
    ["an empty _token", {}, "?_token="],
  ];

  it.each(wrong)("Should answer 401 JSON and run nothing, on every endpoint, for %s", async (_, headers, query = "") => {
    const k = key("unauth");
    const attempts = [
      send(shim.url, `/${query}`, JSON.stringify(["SET", k, "x"]), headers),
      send(shim.url, `/pipeline${query}`, JSON.stringify([["SET", k, "x"]]), headers),
      send(shim.url, `/multi-exec${query}`, JSON.stringify([["SET", k, "x"]]), headers),
      send(shim.url, `/set/${encodeURIComponent(k)}/x${query}`, undefined, headers, "GET"),
      send(shim.url, `/subscribe/chan${query}`, "[]", { ...headers, accept: "text/event-stream" }),
    ];
    for (const answer of await Promise.all(attempts)) {
      expect(answer).toEqual({ status: 401, contentType: "application/json", body: '{"error":"Unauthorized"}' });
    }
    expect(await direct.exists(k)).toBe(0);
  });

  it("Should answer 401 before the body arrives, and wait for the body only with the right token", async () => {
    const head = (token: string) => `POST / HTTP/1.1\r\nHost: shim\r\nAuthorization: Bearer ${token}\r\nContent-Length: 1000000\r\n\r\n["SET",`;
    expect(await rawHttp(shim.url, head("wrong"), 1500)).toMatch(/^HTTP\/1\.1 401 /);
    expect(await rawHttp(shim.url, head(TOKEN), 500)).toBe("");
  });
});

describe("commands that would leak between clients, block, or reach outside the database", () => {
  const named = [
    "SELECT 1",
    "AUTH x",
    "HELLO 3",
    "RESET",
    "CLIENT SETNAME evil",
    "CLIENT KILL TYPE normal",
    "QUIT",
    "MONITOR",
    "SUBSCRIBE chan",
    "PSUBSCRIBE *",
    "DEBUG SLEEP 0",
    "CONFIG SET maxmemory 1",
    "SHUTDOWN NOSAVE",
    "MODULE LIST",
    "ACL LIST",
    "SCRIPT DEBUG YES",
    "MULTI",
    "EXEC",
    "WATCH k",
    "BLPOP k 1",
    "XREAD BLOCK 1000 STREAMS k $",
    "SWAPDB 0 1",
    "MOVE k 1",
    "MIGRATE 127.0.0.1 1 k 0 10",
    "REPLICAOF 127.0.0.1 1",
    "SAVE",
    "BGSAVE",
    "COPY k k2 DB 1",
  ];

  /** Every command (or subcommand) that Redis itself flags `admin` or `blocking`, with harmless arguments. */
  async function flaggedByRedis(): Promise<string[]> {
    const table = (await direct.call("COMMAND")) as Array<[string, number, string[], ...unknown[]]>;
    const found: string[] = [];
    for (const [name, , flags, , , , , , , subcommands = []] of table as unknown as Array<[string, number, string[], ...Array<unknown>]>) {
      if (flags.includes("admin")) found.push(name);
      if (flags.includes("blocking")) found.push(/^x/.test(name) ? `${name} BLOCK 1000 STREAMS k $` : `${name} k 1`);
      for (const [sub, , subFlags] of subcommands as Array<[string, number, string[]]>) {
        if (subFlags.includes("admin")) found.push(sub.replace("|", " "));
      }
    }
    return found;
  }

  const refusedText = (line: string) => `{"error":"ERR Command is not available: '${line.split(" ")[0]!.toUpperCase()}'"}`;
  const spellings = (line: string) => {
    const [name, ...args] = line.split(" ");
    const mixed = [...name!].map((c, i) => (i % 2 ? c.toLowerCase() : c.toUpperCase())).join("");
    return [name!.toUpperCase(), name!.toLowerCase(), mixed].map((spelled) => [spelled, ...args]);
  };

  it("Should refuse each of them in every spelling, as a single command, a pipeline entry, a transaction and a path", async () => {
    const lines = [...named, ...(await flaggedByRedis())];
    expect(lines.length).toBeGreaterThan(60);
    const check = async (line: string, command: string[]) => {
      const single = await send(shim.url, "/", JSON.stringify(command), H);
      expect({ line, command, ...single }).toEqual({ line, command, status: 400, contentType: "application/json", body: refusedText(line) });
      const pipeline = await send(shim.url, "/pipeline", JSON.stringify([["PING"], command, ["ECHO", "after"]]), H);
      expect({ line, ...pipeline }).toMatchObject({ line, status: 200, body: `[{"result":"PONG"},${refusedText(line)},{"result":"after"}]` });
      const transaction = await send(shim.url, "/multi-exec", JSON.stringify([["PING"], command]), H);
      expect({ line, ...transaction }).toMatchObject({ line, status: 400, body: refusedText(line) });
      // Lower-case /subscribe/… and /psubscribe/… are the SSE routes, /monitor a 404: not commands.
      if (/^(subscribe|psubscribe|monitor)$/.test(command[0]!)) return;
      const path = await send(shim.url, `/${command.map(encodeURIComponent).join("/")}`, undefined, H, "GET");
      expect({ line, ...path }).toMatchObject({ line, status: 400, body: refusedText(line) });
    };
    for (const line of lines) await Promise.all(spellings(line).map((command) => check(line, command)));
  }, 60_000);

  it("Should refuse a name that only upper-cases to a refused one, and send Redis nothing it did not check", async () => {
    // "ſ" (U+017F) upper-cases to "S": the name the shim checks is the name Redis gets.
    const answer = await send(shim.url, "/", JSON.stringify(["ſhutdown", "NOSAVE"]), H);
    expect(answer).toMatchObject({ status: 400, body: `{"error":"ERR Command is not available: 'SHUTDOWN'"}` });
    for (const trick of [" SELECT", "SELECT ", "SEL\u0000ECT", "ＳＥＬＥＣＴ"]) {
      const other = await send(shim.url, "/", JSON.stringify([trick, "1"]), H);
      expect(other.status).toBe(400);
      expect(JSON.parse(other.body).error).toMatch(/^ERR unknown command/);
    }
  });

  it("Should leave the shared connection as it was: same database, same name, same settings", async () => {
    const before = await direct.config("GET", "maxmemory");
    await send(
      shim.url,
      "/pipeline",
      JSON.stringify([
        ["SELECT", "1"],
        ["CLIENT", "SETNAME", "evil"],
        ["CONFIG", "SET", "maxmemory", "1"],
      ]),
      H,
    );
    const k = key("db0");
    expect(await send(shim.url, "/", JSON.stringify(["SET", k, "x"]), H)).toMatchObject({ status: 200 });
    expect(await direct.get(k)).toBe("x");
    expect(await direct.config("GET", "maxmemory")).toEqual(before);
    expect(await direct.client("LIST")).toMatch(/name=ratewall-upstash-shim /);
    expect(await direct.client("LIST")).not.toMatch(/name=evil/);
  });

  it("Should not let a script run what the shim refuses: Redis forbids those commands inside Lua", async () => {
    for (const line of [
      "CONFIG SET maxmemory 1",
      "SHUTDOWN NOSAVE",
      "CLIENT SETNAME evil",
      "MONITOR",
      "SUBSCRIBE c",
      "DEBUG SLEEP 0",
      "MODULE LIST",
      "REPLICAOF 127.0.0.1 1",
      "BLPOP k 1",
    ]) {
      const [name, ...args] = line.split(" ");
      const script = `return redis.call(${[name, ...args].map((part) => `'${part}'`).join(",")})`;
      const answer = await send(shim.url, "/", JSON.stringify(["EVAL", script, 0]), H);
      expect({ line, status: answer.status }).toEqual({ line, status: 400 });
      expect(JSON.parse(answer.body).error).toMatch(/not allowed from script|This Redis command is not allowed/i);
    }
    expect(await direct.ping()).toBe("PONG");
  });
});

describe("hostile request lines and headers", () => {
  const lines = [
    "GET // HTTP/1.1",
    "POST //pipeline HTTP/1.1",
    "GET /% HTTP/1.1",
    "GET /%zz/%ff HTTP/1.1",
    "GET http://evil.example/ping HTTP/1.1",
    "OPTIONS * HTTP/1.1",
    "GET /../../etc/passwd HTTP/1.1",
    "GET /subscribe/%E0%A4%A HTTP/1.1",
    `GET /${"a".repeat(20_000)} HTTP/1.1`,
    "BREW / HTTP/1.1",
    "GET / HTTP/9.9",
    "\u0000\u0001\u0002 garbage",
  ];

  it.each(lines.map((line) => [line.length > 60 ? `${line.slice(0, 40)}… (${line.length} characters)` : line, line]))(
    "Should answer %j without crashing, and keep serving",
    async (_, line) => {
      const answer = await rawHttp(shim.url, `${line}\r\nHost: shim\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 0\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 [2-5]\d\d /);
      expect(await send(shim.url, "/", '["PING"]', H)).toMatchObject({ status: 200, body: '{"result":"PONG"}' });
    },
  );
});

describe("where the shim listens", () => {
  it("Should listen on 127.0.0.1 by default, without a warning", async () => {
    const local = await spawnShim(["--redis-url", redis.url, "--token", TOKEN]);
    await local.stop();
    expect(new URL(local.url).hostname).toBe("127.0.0.1");
    expect(local.output()).not.toMatch(/warning/i);
  });

  it("Should warn, naming the address, when told to listen on every interface", async () => {
    const open = await spawnShim(["--redis-url", redis.url, "--token", TOKEN, "--host", "0.0.0.0"]);
    await open.stop();
    expect(open.output()).toMatch(/warning: listening on 0\.0\.0\.0, reachable from other machines/);
  });

  it("Should refuse to start without a token", async () => {
    await expect(spawnShim(["--redis-url", redis.url], { UPSTASH_REDIS_REST_TOKEN: "" })).rejects.toThrow(/no token/);
  });
});
