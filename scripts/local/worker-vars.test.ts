import { describe, expect, it } from "vitest";
import { workerVarArgs } from "./worker-vars.ts";

describe("the variables npm start hands to the Worker", () => {
  it("Should pass the Worker's variables from the environment, let the stack's own values win, and ignore the rest", () => {
    const env = { RATE_LIMIT: "10/1s", ROUTES: '[{"pattern":"a.example/*"}]', MODE: "", HOME: "/root", ORIGIN_URL: "http://user.example" };
    expect(workerVarArgs(env, { ORIGIN_URL: "http://127.0.0.1:9000" })).toEqual([
      "--var",
      "RATE_LIMIT:10/1s",
      "--var",
      "ORIGIN_URL:http://127.0.0.1:9000",
      "--var",
      'ROUTES:[{"pattern":"a.example/*"}]',
    ]);
  });
});
