/**
 * @module The internal errors, one class each with a literal `name` (ky's errors/ style), and how
 * a message quotes a bad value. None of their messages ever contains the Upstash token.
 */

/** A bad setting: names the source (variable or file), the path inside it and the bad value. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  /**
   * @example
   * new ConfigError("ROUTES", "[2].rules[0]", 'invalid window "10 secs"')
   * // message: ROUTES[2].rules[0]: invalid window "10 secs"
   */
  constructor(
    readonly source: string,
    readonly path: string,
    detail: string,
  ) {
    super(`${source}${path}: ${detail}`);
  }
}

/** A Redis REST call failed: a Redis error reply, an HTTP error, a timeout or the network. */
export class RedisRestError extends Error {
  override readonly name = "RedisRestError";
  /**
   * @param kind `reply` (Redis answered with an error), `http` (non-2xx without a Redis error),
   *   `timeout` (no answer within the bound) or `network` (fetch rejected).
   * @param detail what failed, without the command and status; for `reply`, Redis's own error
   *   text (`NOSCRIPT No matching script. Please use EVAL.`).
   */
  constructor(
    readonly kind: "reply" | "http" | "timeout" | "network",
    readonly command: string,
    readonly detail: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(`Redis ${command.toUpperCase()} failed${status ? ` with ${status}` : ""}: ${detail}`, options);
  }
}

const ORIGIN_FAILURE = {
  timeout: "did not answer in time",
  network: "could not be reached",
  none: "is the Worker itself: set ORIGIN_URL (a workers.dev URL has no origin behind it)",
  loop: "is the Worker itself: the request it forwarded came back to it; set ORIGIN_URL",
  interim: "began its answer with an interim (1xx) response, such as 103 Early Hints",
  outside: "would be asked for a path above its own",
} as const;

/**
 * The origin could not be reached, did not answer in time, or there is none (`kind: "none"`, or
 * `"loop"` when a forwarded request came back to the Worker); or its answer began with an
 * interim one (`"interim"`); or the request's path would climb above the origin's own (`"outside"`, the
 * client's doing: answered 400, not 502).
 */
export class OriginError extends Error {
  override readonly name = "OriginError";
  constructor(
    readonly kind: keyof typeof ORIGIN_FAILURE,
    readonly origin: string,
    options?: { cause?: unknown },
  ) {
    super(`Origin ${origin} ${ORIGIN_FAILURE[kind]}`, options);
  }
}

/**
 * The value quoted as it appeared, for messages: strings in quotes, numbers as JavaScript spells
 * them (JSON would print `NaN` and `Infinity`, from TOML's `nan` and `inf` or JSON's `1e999`, as
 * `null`), the rest as JSON.
 *
 * @example
 * `got ${quote("10 secs")}`; // 'got "10 secs"'
 * `got ${quote(Number("abc"))}`; // "got NaN"
 * `got ${quote(Promise.resolve())}`; // "got a Promise"
 */
export function quote(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return String(value);
  // JSON shows a Promise as `{}`, which hides the usual mistake: an async function where a value is due.
  if (value instanceof Promise) return "a Promise";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Throws a TypeError naming `option` unless `value` has each of `methods`. Checked when created:
 * a missing one would fail every call, which FAILURE_MODE=open turns into no limit at all.
 *
 * @example
 * expectMethods("runner", {}, ["evalsha", "eval"]);
 * // TypeError: runner: expected an object with evalsha and eval methods, got {}
 */
export function expectMethods(option: string, value: unknown, methods: readonly string[]): void {
  if (methods.some((name) => typeof (value as Record<string, unknown> | null | undefined)?.[name] !== "function")) {
    throw new TypeError(`${option}: expected an object with ${methods.join(" and ")} methods, got ${quote(value)}`);
  }
}
