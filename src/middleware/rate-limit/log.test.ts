import { describe, expect, it } from "vitest";
import { type FailureLines, failureLine, type LogEntry, type Logger, recoveryLine, redact } from "./log.ts";

/** A logger that keeps what it was given, and the line the console would print. */
function recorder() {
  const entries: LogEntry[] = [];
  return Object.assign((entry: LogEntry) => void entries.push(entry), { entries });
}

describe("redact", () => {
  it("Should replace the secret wherever it appears in a line, and pass a line without it unchanged", () => {
    const logger = recorder();
    const log = redact(logger, "AYNgASQgODk0secret");
    const clean: LogEntry = { level: "warn", event: "redis-failure", kind: "http", cause: "Service Unavailable" };
    log(clean);
    log({ level: "error", event: "internal-error", cause: "invalid token Bearer AYNgASQgODk0secret", nested: { list: ["AYNgASQgODk0secret"] } });
    expect(logger.entries[0]).toBe(clean);
    expect(logger.entries[1]).toEqual({ level: "error", event: "internal-error", cause: "invalid token Bearer [redacted]", nested: { list: ["[redacted]"] } });
  });

  it("Should scrub a secret holding a quote or a backslash, as is and where a message quoted it as JSON", () => {
    const secret = 'AYNg"ASQg\\ODk0\nsecret';
    const logger = recorder();
    const log = redact(logger, secret);
    log({ level: "error", event: "internal-error", cause: `Bearer ${secret}`, quoted: `invalid count ${JSON.stringify(secret)}` });
    const line = JSON.stringify(logger.entries[0]);
    for (const form of [secret, JSON.stringify(secret).slice(1, -1), "ASQg"]) expect(line).not.toContain(form);
    expect(logger.entries[0]).toEqual({ level: "error", event: "internal-error", cause: "Bearer [redacted]", quoted: 'invalid count "[redacted]"' });
  });

  it("Should keep a line valid where the secret's text follows an escape in it", () => {
    const logger = recorder();
    redact(logger, "nsecret-token")({ level: "error", event: "internal-error", cause: "line one\nsecret-token and nsecret-token" });
    expect(logger.entries[0]).toEqual({ level: "error", event: "internal-error", cause: "line one\nsecret-token and [redacted]" });
  });

  it("Should hand back an async logger's promise, scrubbed line or not, so that its rejection can be caught (unfailing)", () => {
    const shipped = Promise.resolve();
    const log = redact((() => shipped) as Logger, "AYNgASQgODk0secret") as (entry: LogEntry) => unknown;
    expect([log({ level: "info", event: "refusal" }), log({ level: "error", event: "internal-error", cause: "AYNgASQgODk0secret" })]).toEqual([
      shipped,
      shipped,
    ]);
  });
});

describe("the redis-failure lines of an outage", () => {
  it("Should count a short outage's unwritten failures into the recovery line after the interval", () => {
    const lines: FailureLines = new Map();
    const written = [0, 1_000, 2_000, 9_000].map((at) => failureLine(lines, "default", "timeout", at));
    expect(written).toEqual([{ suppressed: 0 }, undefined, undefined, undefined]);
    expect(recoveryLine(lines, "default", 9_500)).toBeUndefined();
    expect(recoveryLine(lines, "default", 10_000)).toEqual({ suppressed: 3 });
    expect(recoveryLine(lines, "default", 10_001)).toBeUndefined();
    expect(failureLine(lines, "default", "timeout", 10_002)).toEqual({ suppressed: 0 });
  });

  it("Should write a line again at once when the clock went back, rather than fall silent until it catches up", () => {
    const lines: FailureLines = new Map();
    failureLine(lines, "default", "http", 1_700_000_000_000);
    expect(failureLine(lines, "default", "http", 1_700_000_000_000 - 3_600_000)).toEqual({ suppressed: 0 });
  });

  it("Should keep each route's and each kind's lines apart, whatever the route's name holds", () => {
    const lines: FailureLines = new Map();
    expect(failureLine(lines, "example.com/docs/my", "http", 0)).toEqual({ suppressed: 0 });
    expect(failureLine(lines, "example.com/docs/my file", "http", 0)).toEqual({ suppressed: 0 });
    expect(failureLine(lines, "example.com/docs/my", "timeout", 0)).toEqual({ suppressed: 0 });
    expect(failureLine(lines, "example.com/docs/my", "http", 1)).toBeUndefined();
  });
});
