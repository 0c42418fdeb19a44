import { describe, expect, it } from "vitest";
import { refusal } from "./commands.ts";
import { pathFormCommand } from "./path-form.ts";
import { entryJson, errorJson, parseCommandBody, parsePipelineBody, RequestError, resultJson, type Reply } from "./protocol.ts";
import { ScriptRegistry, sha1, stripUpstashFlags } from "./scripts.ts";

const b = (text: string) => Buffer.from(text);

describe("argument conversion (docs/shim.md §3)", () => {
  it("Should upper-case the name and print numbers and booleans as the client does", () => {
    expect(parseCommandBody('["evalsha","e0e1",1,"key1","a",2,true]')).toEqual({
      name: "EVALSHA",
      args: ["e0e1", "1", "key1", "a", "2", "true"],
    });
    expect(parseCommandBody('["zadd","k",99.5,"m",1e21,false]').args).toEqual(["k", "99.5", "m", "1e+21", "false"]);
  });

  it.each([
    ['["PING"', "ERR failed to parse command"],
    ["[]", "ERR empty command"],
    ['{"a":1}', "ERR failed to parse command"],
    ["[1]", "ERR failed to parse command: the command name must be a non-empty string"],
    ['["SET","k",null]', "ERR failed to parse command: argument 2 is null; only strings, numbers and booleans are allowed"],
    ['["SET","k",["v"]]', "ERR failed to parse command: argument 2 is an array; only strings, numbers and booleans are allowed"],
    ['["SET","k",{"v":1}]', "ERR failed to parse command: argument 2 is an object; only strings, numbers and booleans are allowed"],
  ])("Should reject the command body %s with 400 %j", (body, message) => {
    expect(() => parseCommandBody(body)).toThrowError(new RequestError(400, message));
  });

  it.each([
    ["[[", "ERR failed to parse pipeline request"],
    ["[]", "ERR empty pipeline request"],
    ['["PING"]', "ERR failed to parse pipeline request: command 1"],
    ['[["PING"],[]]', "ERR failed to parse pipeline request: command 2: the command is empty"],
    ['[["SET","k",null]]', "ERR failed to parse pipeline request: command 1: argument 2 is null; only strings, numbers and booleans are allowed"],
  ])("Should reject the pipeline body %s with 400 %j", (body, message) => {
    expect(() => parsePipelineBody(body)).toThrowError(new RequestError(400, message));
  });

  it("Should read a command from the path form, with the body last but one and the query after it", () => {
    const command = pathFormCommand("/set/a%20key/v", new URLSearchParams("_token=t&EX=100&NX"), b("body"));
    expect(command).toEqual({ name: "SET", args: ["a key", "v", b("body"), "EX", "100", "NX"] });
  });

  it("Should read dot segments in the path form as arguments, so they cannot change the command", () => {
    expect(pathFormCommand("/set/%2E%2E/flushall", new URLSearchParams(), b(""))).toEqual({ name: "SET", args: ["..", "flushall"] });
    expect(pathFormCommand("/set/k/.", new URLSearchParams(), b(""))).toEqual({ name: "SET", args: ["k", "."] });
  });
});

describe("RESP2 replies as JSON (docs/shim.md §4.1, §5, §15)", () => {
  const integer = (digits: string) => digits;
  const table: Array<[string, Reply, string, string]> = [
    ["simple OK", b("OK"), '{"result":"OK"}', '{"result":"OK"}'],
    ["PONG", b("PONG"), '{"result":"PONG"}', '{"result":"UE9ORw=="}'],
    ["a bulk string", b("v"), '{"result":"v"}', '{"result":"dg=="}'],
    ["nil", null, '{"result":null}', '{"result":null}'],
    ["an integer", integer("1"), '{"result":1}', '{"result":1}'],
    ["a negative integer (TTL of a missing key)", integer("-2"), '{"result":-2}', '{"result":-2}'],
    ["an integer beyond 2^53, with Redis's exact digits", integer("9007199254740993"), '{"result":9007199254740993}', '{"result":9007199254740993}'],
    ["HGETALL's flat array", [b("f"), b("1")], '{"result":["f","1"]}', '{"result":["Zg==","MQ=="]}'],
    ["a score as a string", [b("m"), b("1.5")], '{"result":["m","1.5"]}', '{"result":["bQ==","MS41"]}'],
    ["a nested Lua table", [integer("1"), b("a"), null, [b("x"), integer("2")]], '{"result":[1,"a",null,["x",2]]}', '{"result":[1,"YQ==",null,["eA==",2]]}'],
    ["an OK nested in an array (encoded: the client would decode it)", [b("OK")], '{"result":["OK"]}', '{"result":["T0s="]}'],
    [
      "a SCRIPT LOAD digest",
      b("098e0f0d1448c0a81dafe820f66d460eb09263da"),
      '{"result":"098e0f0d1448c0a81dafe820f66d460eb09263da"}',
      '{"result":"MDk4ZTBmMGQxNDQ4YzBhODFkYWZlODIwZjY2ZDQ2MGViMDkyNjNkYQ=="}',
    ],
    ["an error nested in an array", [new Error("ERR inner")], '{"result":["ERR inner"]}', '{"result":["RVJSIGlubmVy"]}'],
  ];

  it.each(table)("Should map %s to JSON", (_, reply, json, base64) => {
    expect(resultJson(reply, false)).toBe(json);
    expect(resultJson(reply, true)).toBe(base64);
  });

  it("Should keep binary bytes exact in base64 and replace invalid UTF-8 with U+FFFD without it", () => {
    const bytes = Buffer.from([0xff, 0x00, 0xc3, 0xa9]);
    expect(resultJson(bytes, true)).toBe(`{"result":"${bytes.toString("base64")}"}`);
    expect(JSON.parse(resultJson(bytes, false))).toEqual({ result: "\uFFFD\u0000é" });
  });

  it("Should map a Lua table nested as deep as Redis returns one (about 5,000 levels, up to its Lua stack limit)", () => {
    // Redis 7 answers `EVAL` with a table nested 5,000 deep; 20,000 is "reached lua stack limit".
    const depth = 10_000;
    let reply: Reply = [b("x"), integer("7")];
    for (let level = 1; level < depth; level++) reply = [reply, null];
    const text = resultJson(reply, true);
    expect(text.length).toBe(`{"result":`.length + depth * "[,null]".length - ",null".length + `"eA==",7}`.length);
    expect(text.startsWith(`{"result":${"[".repeat(depth)}"eA==",7],null]`)).toBe(true);
    expect(text.endsWith(",null]}")).toBe(true);
  });

  it("Should never encode errors, and give error entries no result key", () => {
    expect(errorJson("ERR boom")).toBe('{"error":"ERR boom"}');
    expect(entryJson(new Error("NOSCRIPT No matching script. Please use EVAL."), true)).toBe('{"error":"NOSCRIPT No matching script. Please use EVAL."}');
  });
});

describe("refused commands (docs/shim.md §13)", () => {
  it.each(["SELECT", "AUTH", "HELLO", "CLIENT", "MULTI", "EXEC", "WATCH", "SUBSCRIBE", "BLPOP", "CONFIG", "SHUTDOWN", "WAIT", "MOVE"])(
    "Should refuse %s in Upstash's words",
    (name) => expect(refusal({ name, args: [] })).toBe(`ERR Command is not available: '${name}'`),
  );

  it("Should refuse XREAD only when it would block, and let ordinary commands through", () => {
    expect(refusal({ name: "XREAD", args: ["block", "0", "STREAMS", "s", "$"] })).toBe("ERR Command is not available: 'XREAD'");
    expect(refusal({ name: "XREAD", args: ["STREAMS", "s", "0"] })).toBeUndefined();
    expect(refusal({ name: "XREAD", args: ["COUNT", "1", "STREAMS", "block", "0"] })).toBeUndefined();
    expect(refusal({ name: "XREADGROUP", args: ["GROUP", "block", "block", "STREAMS", "s", ">"] })).toBeUndefined();
    // Options come in any order (Redis's t_stream.c): a group named STREAMS after NOACK ends no scan.
    expect(refusal({ name: "XREADGROUP", args: ["NOACK", "GROUP", "STREAMS", "c", "BLOCK", "0", "STREAMS", "s", ">"] })).toBe(
      "ERR Command is not available: 'XREADGROUP'",
    );
    expect(refusal({ name: "XREAD", args: ["COUNT", "block", "STREAMS", "s", "0"] })).toBeUndefined();
    expect(refusal({ name: "XREADGROUP", args: ["GROUP", "g", "c", "COUNT", "1", "BLOCK", "0", "STREAMS", "s", ">"] })).toBe(
      "ERR Command is not available: 'XREADGROUP'",
    );
    expect(refusal({ name: "EVALSHA", args: [] })).toBeUndefined();
  });

  it("Should refuse SCRIPT DEBUG, which turns the shared connection into the Lua debugger, and let SCRIPT LOAD through", () => {
    expect(refusal({ name: "SCRIPT", args: ["debug", "yes"] })).toBe("ERR Command is not available: 'SCRIPT'");
    expect(refusal({ name: "SCRIPT", args: ["LOAD", "return 1"] })).toBeUndefined();
  });

  it("Should refuse COPY into another database, and not a COPY whose key is named db", () => {
    expect(refusal({ name: "COPY", args: ["a", "b", "DB", "1"] })).toBe("ERR Command is not available: 'COPY'");
    expect(refusal({ name: "COPY", args: ["a", "b", "REPLACE", "db", "1"] })).toBe("ERR Command is not available: 'COPY'");
    expect(refusal({ name: "COPY", args: ["a", "db"] })).toBeUndefined();
  });
});

describe("the allow-key-locking shebang (docs/shim.md §9.4)", () => {
  it("Should keep a bare shebang when the Upstash flag was the only one", () => {
    expect(stripUpstashFlags("#!lua flags=allow-key-locking\nreturn 1")).toBe("#!lua\nreturn 1");
  });

  it("Should keep the other flags", () => {
    expect(stripUpstashFlags("#!lua flags=no-writes,allow-key-locking\nreturn 1")).toBe("#!lua flags=no-writes\nreturn 1");
  });

  it("Should drop the whole shebang line for Redis before 7, which knows no shebang", () => {
    expect(stripUpstashFlags("#!lua flags=no-writes,allow-key-locking\nreturn 1", false)).toBe("\nreturn 1");
  });

  it("Should leave scripts without the flag alone", () => {
    expect(stripUpstashFlags("return 1")).toBeUndefined();
    expect(stripUpstashFlags("#!lua flags=no-writes\nreturn 1")).toBeUndefined();
  });

  it("Should send EVALSHA of the original digest as the rewritten script's digest, once the script was seen", () => {
    const scripts = new ScriptRegistry();
    const original = "#!lua flags=allow-key-locking\nreturn 1";
    expect(scripts.plan({ name: "EVALSHA", args: [sha1(original), "0"] }).command.args[0]).toBe(sha1(original));
    scripts.plan({ name: "EVAL", args: [original, "0"] });
    expect(scripts.plan({ name: "EVALSHA", args: [sha1(original), "0"] }).command.args[0]).toBe(sha1("#!lua\nreturn 1"));
    expect(scripts.plan({ name: "SCRIPT", args: ["EXISTS", sha1(original)] }).command.args).toEqual(["EXISTS", sha1("#!lua\nreturn 1")]);
  });

  it("Should answer SCRIPT LOAD with the digest of the original text, and forget everything on SCRIPT FLUSH", () => {
    const scripts = new ScriptRegistry();
    const original = "#!lua flags=allow-key-locking\nreturn 2";
    const load = scripts.plan({ name: "SCRIPT", args: ["load", original] });
    expect(load.command.args).toEqual(["LOAD", "#!lua\nreturn 2"]);
    expect(load.after?.(b(sha1("#!lua\nreturn 2")))).toEqual(b(sha1(original)));
    scripts.plan({ name: "SCRIPT", args: ["FLUSH"] }).after?.(b("OK"));
    expect(scripts.plan({ name: "EVALSHA", args: [sha1(original), "0"] }).command.args[0]).toBe(sha1(original));
  });
});
