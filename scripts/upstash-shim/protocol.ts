/**
 * @module PURE: the Upstash REST wire format (docs/shim.md §3–§5; § numbers below are that
 * file's). Request bodies become
 * validated commands; RESP2 replies become the JSON that `@upstash/redis` expects, with or without
 * `Upstash-Encoding: base64`. No I/O here.
 */

/** Upstash's request size limit on the free and pay-as-you-go plans (§3): the shim's default. */
export const MAX_REQUEST_BYTES = 10 * 1024 * 1024;

/** One argument as Redis receives it: UTF-8 text, or raw bytes (the path form's body). */
export type Arg = string | Buffer;

/** A validated command: the name upper-cased, the arguments converted (§3). */
export interface Command {
  name: string;
  args: Arg[];
}

/**
 * A RESP2 reply as the Redis client hands it over: bulk and simple strings as `Buffer`, integers as
 * their decimal digits (`string`, so that values beyond 2^53 keep Redis's exact digits, §4.1), nil
 * as `null`, arrays recursively, and an error nested inside an array as an `Error`.
 */
export type Reply = Buffer | string | null | Error | Reply[];

/** A client mistake that gets a JSON `{"error": message}` with `status` (400, 404, 405, 413…). */
export class RequestError extends Error {
  override readonly name = "RequestError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Parses the body of `POST /`: a non-empty JSON array whose first element is the command name (§3).
 * The messages borrow upstashdis's wording, which Upstash has not confirmed (§3, §17.2).
 *
 * @example
 * parseCommandBody('["SET","k",1.5,true]'); // → { name: "SET", args: ["k", "1.5", "true"] }
 */
export function parseCommandBody(text: string): Command {
  const value = parseJson(text, "ERR failed to parse command");
  if (Array.isArray(value) && value.length === 0) throw new RequestError(400, "ERR empty command");
  return toCommand(value, "ERR failed to parse command");
}

/**
 * Parses the body of `POST /pipeline` and `POST /multi-exec`: a non-empty array of command arrays
 * (§3, §7, §8). One bad command rejects the whole request, before anything runs.
 *
 * @example
 * parsePipelineBody('[["INCR","n"],["GET","n"]]'); // → [{ name: "INCR", … }, { name: "GET", … }]
 */
export function parsePipelineBody(text: string): Command[] {
  const failed = "ERR failed to parse pipeline request";
  const value = parseJson(text, failed);
  if (!Array.isArray(value)) throw new RequestError(400, failed);
  if (value.length === 0) throw new RequestError(400, "ERR empty pipeline request");
  return value.map((entry, i) => toCommand(entry, `${failed}: command ${i + 1}`));
}

/**
 * Checks one command array and converts its arguments (§3): a string stays as is, a number becomes
 * `String(n)` (how the client prints numbers), a boolean becomes `"true"`/`"false"`. `null`, nested
 * arrays and objects are rejected: the client never sends them, and Upstash's handling is unknown.
 *
 * @example
 * toCommand(["zadd", "z", 99.5, "m"], "ERR bad"); // → { name: "ZADD", args: ["z", "99.5", "m"] }
 */
function toCommand(value: unknown, context: string): Command {
  if (!Array.isArray(value)) throw new RequestError(400, context);
  if (value.length === 0) throw new RequestError(400, `${context}: the command is empty`);
  const [name, ...rest] = value as unknown[];
  if (typeof name !== "string" || name === "") {
    throw new RequestError(400, `${context}: the command name must be a non-empty string`);
  }
  const args = rest.map((arg, i) => {
    if (typeof arg === "string") return arg;
    if (typeof arg === "number" || typeof arg === "boolean") return String(arg);
    const kind = arg === null ? "null" : Array.isArray(arg) ? "an array" : "an object";
    throw new RequestError(400, `${context}: argument ${i + 1} is ${kind}; only strings, numbers and booleans are allowed`);
  });
  return { name: name.toUpperCase(), args };
}

/**
 * The JSON text of a success envelope, `{"result": …}` (§4). `base64` applies §5: every string is
 * encoded, except a top-level `OK`; integers, null and errors are never encoded.
 *
 * @example
 * resultJson(Buffer.from("v"), true); // → '{"result":"dg=="}'
 */
export function resultJson(reply: Reply, base64: boolean): string {
  return `{"result":${valueJson(reply, base64, true)}}`;
}

/**
 * The JSON text of an error envelope, `{"error": "…"}` (§4); never encoded (§5).
 *
 * @example
 * errorJson("ERR boom"); // → '{"error":"ERR boom"}'
 */
export function errorJson(message: string): string {
  return JSON.stringify({ error: message });
}

/**
 * One pipeline or multi-exec entry: `{"result"}` or `{"error"}`, never both (§4, §7). An error entry
 * has no `result` key: redis-js's `keepErrors` test expects `result` to be `undefined`.
 */
export function entryJson(reply: Reply | Error, base64: boolean): string {
  return reply instanceof Error ? errorJson(reply.message) : resultJson(reply, base64);
}

function valueJson(reply: Reply, base64: boolean, topLevel: boolean): string {
  if (!Array.isArray(reply)) return scalarJson(reply, base64, topLevel);
  // A loop, not recursion: Lua returns tables nested about 5,000 deep (Redis stops at its Lua
  // stack limit), past what the call stack holds for one frame per level.
  let json = "[";
  const open: Array<{ items: Reply[]; next: number }> = [{ items: reply, next: 0 }];
  while (open.length > 0) {
    const array = open[open.length - 1]!;
    if (array.next === array.items.length) {
      json += "]";
      open.pop();
      continue;
    }
    if (array.next > 0) json += ",";
    const item = array.items[array.next++]!;
    if (Array.isArray(item)) {
      json += "[";
      open.push({ items: item, next: 0 });
    } else json += scalarJson(item, base64, false);
  }
  return json;
}

function scalarJson(reply: Exclude<Reply, Reply[]>, base64: boolean, topLevel: boolean): string {
  if (reply === null) return "null";
  // Integers as Redis printed them (§4.1): exact even beyond 2^53.
  if (typeof reply === "string") return /^-?\d+$/.test(reply) ? reply : JSON.stringify(reply);
  // An error inside an array (a Lua table with {err=…}) becomes its message string (§4.1, [UNSURE]).
  const bytes = reply instanceof Error ? Buffer.from(reply.message) : reply;
  if (!base64) return JSON.stringify(bytes.toString("utf8"));
  // §5: the top-level OK may stay raw; inside arrays it must be encoded, or the client decodes it.
  if (topLevel && bytes.length === 2 && bytes.toString("latin1") === "OK") return '"OK"';
  return `"${bytes.toString("base64")}"`;
}

function parseJson(text: string, message: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new RequestError(400, message);
  }
}
