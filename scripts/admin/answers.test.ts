import { describe, expect, it } from "vitest";
import { readAnswer } from "./answers.ts";
import { CONFIG, DENIED, RESET, STATUS, TIER_SET, UNALLOWED } from "./fixtures.ts";

describe("telling the admin API's answers from an origin's", () => {
  it("Should accept each command's answer as JSON, problem-style +json types included", () => {
    expect(readAnswer("status", "application/json; charset=utf-8", JSON.stringify(STATUS))).toEqual(STATUS);
    expect(readAnswer("reset", "application/json", JSON.stringify(RESET))).toEqual(RESET);
    expect(readAnswer("config", "application/vnd.ratewall+json", JSON.stringify(CONFIG))).toEqual(CONFIG);
    expect(readAnswer("deny", "application/json", JSON.stringify(DENIED))).toEqual(DENIED);
    expect(readAnswer("allow", "application/json", JSON.stringify(UNALLOWED))).toEqual(UNALLOWED);
    expect(readAnswer("tier", "application/json", JSON.stringify(TIER_SET))).toEqual(TIER_SET);
  });

  it.each([
    ["status", "text/html", JSON.stringify(STATUS)],
    ["status", "application/json", "<h1>origin</h1>"],
    ["status", "application/json", "[]"],
    ["status", "application/json", '{"method":"GET","url":"/__ratewall/status"}'],
    ["reset", "application/json", JSON.stringify(STATUS)],
    ["status", "application/json", JSON.stringify(RESET)],
    ["config", "application/json", '{"defaultRoute":null}'],
    ["allow", "application/json", JSON.stringify(DENIED)],
    ["deny", "application/json", '{"client":"203.0.113.7","list":"deny"}'],
    ["tier", "application/json", JSON.stringify(RESET)],
  ] as const)("Should refuse a %s answer of type %s with body %s", (command, type, body) => {
    expect(readAnswer(command, type, body)).toBeUndefined();
  });
});
