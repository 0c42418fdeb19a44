import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { startRedisServer } from "../local/redis-server.ts";
import { startShim, type Shim } from "./index.ts";

const H = { authorization: "Bearer good" };
let redis: Awaited<ReturnType<typeof startRedisServer>>;
let shim: Shim;
beforeAll(async () => {
  // Redis reads other clients' commands during a script only past this threshold (5 s by default).
  redis = await startRedisServer({ args: ["--busy-reply-threshold", "100"] });
  shim = await startShim({ redisUrl: redis.url, token: "good", port: 0 });
});
afterAll(async () => {
  await shim?.close();
  await redis?.stop();
});

const post = async (body: string) => {
  const res = await fetch(`${shim.url}/`, { method: "POST", body, headers: H });
  return { status: res.status, body: await res.text() };
};

describe("a runaway script", () => {
  it("Should be killable with SCRIPT KILL through the shim, which the script's own connection could never deliver", async () => {
    const runaway = post('["EVAL","while true do end",0]');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const kill = await Promise.race([post('["SCRIPT","KILL"]'), new Promise((resolve) => setTimeout(resolve, 3_000, "no answer"))]);
    expect(kill).toEqual({ status: 200, body: '{"result":"OK"}' });
    expect((await runaway).body).toMatch(/Script killed by user/);
    expect(await post('["PING"]')).toEqual({ status: 200, body: '{"result":"PONG"}' });
  }, 15_000);
});

describe("a kill while the control connection is down", () => {
  it("Should write every command of a pipeline or none: a kill then goes on the shared connection", async () => {
    const own = await startShim({ redisUrl: redis.url, token: "good", port: 0 });
    const direct = new Redis(redis.url);
    const maxclients = (await direct.config("GET", "maxclients")) as string[];
    try {
      // Keeps the control connection out: room for the clients there are, then it is dropped.
      const list = (await direct.client("LIST")) as string;
      await direct.config("SET", "maxclients", String(list.trim().split("\n").length - 1));
      // This shim's: the newest control connection (the first test's shim has one too).
      const control = [...list.matchAll(/^id=(\d+) .*name=ratewall-upstash-shim-control /gm)].at(-1)![1]!;
      await direct.client("KILL", "ID", control);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const send = async (path: string, body: unknown) => {
        const res = await fetch(`${own.url}${path}`, { method: "POST", body: JSON.stringify(body), headers: H });
        return { status: res.status, body: await res.text() };
      };
      const answer = await send("/pipeline", [
        ["SET", "kill:n", "1"],
        ["INCR", "kill:n"],
        ["SCRIPT", "KILL"],
      ]);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual([{ result: "OK" }, { result: 2 }, { error: expect.stringMatching(/^NOTBUSY/) }]);
    } finally {
      await direct.config("SET", "maxclients", String(maxclients[1]));
      direct.disconnect();
      await own.close();
    }
  }, 15_000);
});

describe("a kill while the shared connection cannot reconnect", () => {
  it("Should still stop a runaway script that keeps the shared connection out (its SELECT answered BUSY)", async () => {
    // A URL that names a database: reconnecting sends SELECT, which a busy Redis refuses.
    const own = await startShim({ redisUrl: `${redis.url}/0`, token: "good", port: 0 });
    const direct = new Redis(redis.url);
    const runner = new Redis(redis.url);
    try {
      const list = (await direct.client("LIST")) as string;
      const shared = [...list.matchAll(/^id=(\d+) .*name=ratewall-upstash-shim /gm)].at(-1)![1]!;
      // The shared connection is dropped and the script starts before the shim reconnects (≥ 50 ms).
      await direct.client("KILL", "ID", shared);
      const runaway = runner.eval("while true do end", 0).catch((error: Error) => error.message);
      await new Promise((resolve) => setTimeout(resolve, 400));
      const res = await fetch(`${own.url}/`, { method: "POST", body: '["SCRIPT","KILL"]', headers: H });
      expect({ status: res.status, body: await res.text() }).toEqual({ status: 200, body: '{"result":"OK"}' });
      expect(await runaway).toMatch(/Script killed by user/);
    } finally {
      direct.disconnect();
      runner.disconnect();
      await own.close();
    }
  }, 15_000);
});
