/**
 * @module What the middleware reports: one JSON line per event (Workers Logs index the fields).
 * Every line passes through {@link redact}, so the Upstash token can never reach a log even if a
 * lower layer put it in a message.
 */

/** One event. */
export interface LogEntry {
  level: "warn" | "error" | "info";
  event:
    | "refusal"
    | "denied"
    | "shadow-refusal"
    | "redis-failure"
    | "redis-recovered"
    | "client-fallback"
    | "client-address-failed"
    | "ambiguous-path"
    | "analytics-failure"
    | "admin-auth-failure"
    | "admin-change"
    | "origin-failure"
    | "path-above-origin"
    | "config-error"
    | "internal-error";
  [field: string]: unknown;
}

/** Where events go. @default one `console` line of JSON per event */
export type Logger = (entry: LogEntry) => void;

/** The default logger. */
export const consoleLogger: Logger = (entry) => {
  const line = JSON.stringify({ source: "ratewall", ...entry });
  if (entry.level === "error") console.error(line);
  else if (entry.level === "warn") console.warn(line);
  else console.log(line);
};

/**
 * A logger that replaces `secret` wherever it appears: as is, or JSON-quoted (a message that
 * quoted it), in any string of the entry.
 */
export function redact(logger: Logger, secret: string): Logger {
  if (secret.length < 4) return logger;
  // A `"`, `\` or control character in the secret is escaped in the line: once where the secret
  // sat in a string, twice where a message had quoted it as JSON.
  const quoted = JSON.stringify(secret).slice(1, -1);
  const forms = quoted === secret ? [secret] : [quoted, secret];
  const inLine = forms.map((form) => JSON.stringify(form).slice(1, -1));
  return (entry) => {
    const text = JSON.stringify(entry);
    if (!inLine.some((form) => text.includes(form))) return logger(entry);
    // Replaced string by string, not in the line's text, where a match could begin inside an
    // escape (`\n` before a secret starting with `n`) and leave invalid JSON.
    return logger(scrub(JSON.parse(text), forms) as LogEntry);
  };
}

function scrub(value: unknown, forms: readonly string[]): unknown {
  if (typeof value === "string") return forms.reduce((text, form) => text.split(form).join("[redacted]"), value);
  if (Array.isArray(value)) return value.map((item) => scrub(item, forms));
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [scrub(key, forms), scrub(item, forms)]));
}

/**
 * How often an outage writes a `redis-failure` line, per isolate, route and kind: at its first
 * failure, then at most once per interval, with the failures not written since (`suppressed`);
 * the first decision Redis answers after an interval writes `redis-recovered` with those not
 * written yet. One line per failed call would be one line per request while Redis is down,
 * burying every other line; the decision events (`failed-open`, `failed-closed`) still count each
 * request.
 */
export const FAILURE_LOG_INTERVAL_MS = 10_000;

/** Per route, then kind of failure: when it last wrote a line, and how many failed since. */
export type FailureLines = Map<string, Map<string, { at: number; suppressed: number }>>;

/**
 * Whether a failure at `now` writes a line, and if so the failures not written before it; as
 * {@link FAILURE_LOG_INTERVAL_MS} says.
 *
 * @example
 * const lines: FailureLines = new Map();
 * failureLine(lines, "default", "http", 0); // → { suppressed: 0 }
 * failureLine(lines, "default", "http", 5); // → undefined
 * failureLine(lines, "default", "http", 10_000); // → { suppressed: 1 }
 */
export function failureLine(lines: FailureLines, route: string, kind: string, now: number): { suppressed: number } | undefined {
  let kinds = lines.get(route);
  if (kinds === undefined) {
    kinds = new Map();
    lines.set(route, kinds);
  }
  const last = kinds.get(kind);
  if (last !== undefined && within(last.at, now)) {
    last.suppressed++;
    return undefined;
  }
  kinds.set(kind, { at: now, suppressed: 0 });
  return { suppressed: last?.suppressed ?? 0 };
}

/**
 * Writes `entry`, a failure of its `kind` under `key` (a route, an origin), as often as
 * {@link failureLine} allows, with `suppressed` when failures went unwritten before it.
 *
 * @example
 * logThrottled(log, runtime.originLines, origin, now, { level: "error", event: "origin-failure", kind: "timeout", origin, cause });
 */
export function logThrottled(log: Logger, lines: FailureLines, key: string, now: number, entry: LogEntry & { kind: string }): void {
  const line = failureLine(lines, key, entry.kind, now);
  if (line) log(line.suppressed > 0 ? { ...entry, ...line } : entry);
}

/**
 * After Redis answered a decision of `route` at `now`: once the interval since each of its lines
 * has passed, its outage is over (the next failure writes a line at once), and the failures not
 * written yet are returned for a `redis-recovered` line, if any.
 *
 * @example
 * recoveryLine(lines, "default", 20_000); // → { suppressed: 3 }
 */
export function recoveryLine(lines: FailureLines, route: string, now: number): { suppressed: number } | undefined {
  const kinds = lines.get(route);
  if (kinds === undefined) return undefined;
  let suppressed = 0;
  for (const last of kinds.values()) {
    if (within(last.at, now)) return undefined;
    suppressed += last.suppressed;
  }
  lines.delete(route);
  return suppressed > 0 ? { suppressed } : undefined;
}

/** Whether `now` is in the interval after a line written `at`; a clock that went back is not. */
function within(at: number, now: number): boolean {
  return now >= at && now < at + FAILURE_LOG_INTERVAL_MS;
}

/** A short, token-free description of why a Redis call failed. */
export function describeFailure(error: unknown): { kind: string; cause: string } {
  if (error instanceof Error) {
    const kind = "kind" in error && typeof error.kind === "string" ? error.kind : error.name;
    return { kind, cause: error.message };
  }
  return { kind: "unknown", cause: String(error) };
}

const ignore = () => {};

/**
 * A log function that cannot fail a request: a user's that throws would turn a 429, or the 502
 * that reports an origin's failure, into an unanswered request; an async one's rejection, left
 * unhandled, would end a Node process.
 *
 * @example
 * const log = unfailing(options.log ?? consoleLogger);
 */
export function unfailing(log: Logger): Logger {
  // Nowhere left to report a failure: the log is where failures go.
  return (entry) => {
    attempt(() => log(entry), ignore);
  };
}

/**
 * Calls `work`, handing what it throws, or its promise (any thenable) rejects with, to `failed`
 * instead; returns that promise, settled either way, for `waitUntil`.
 *
 * @example
 * const pending = attempt(() => onEvent(event), (error) => log({ level: "warn", event: "analytics-failure", cause: String(error) }));
 */
export function attempt(work: () => unknown, failed: (error: unknown) => void): Promise<unknown> | undefined {
  try {
    const result = work();
    if (typeof (result as PromiseLike<unknown> | undefined)?.then === "function") return Promise.resolve(result).then(undefined, failed);
  } catch (error) {
    failed(error);
  }
  return undefined;
}
