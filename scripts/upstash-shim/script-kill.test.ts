import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
