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
    | "client-fallback"
    | "analytics-failure"
    | "admin-auth-failure"
    | "origin-failure"
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

/** A logger that replaces `secret` wherever it appears. */
export function redact(logger: Logger, secret: string): Logger {
  if (secret.length < 4) return logger;
  return (entry) => {
    const text = JSON.stringify(entry);
    logger(text.includes(secret) ? (JSON.parse(text.split(secret).join("[redacted]")) as LogEntry) : entry);
  };
}

/** A short, token-free description of why a Redis call failed. */
export function describeFailure(error: unknown): { kind: string; cause: string } {
  if (error instanceof Error) {
    const kind = "kind" in error && typeof error.kind === "string" ? error.kind : error.name;
    return { kind, cause: error.message };
  }
  return { kind: "unknown", cause: String(error) };
}
