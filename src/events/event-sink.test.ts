import { describe, expect, it } from "vitest";
import type { LogEntry } from "../middleware/rate-limit/log.ts";
import type { DecisionEvent } from "./decision-event.ts";
import { createEventSink } from "./event-sink.ts";

const event = {
  outcome: "allowed",
  route: "default",
  rule: "default",
  algorithm: "fixed-window",
  limit: 10,
  remaining: 9,
  nearLimit: false,
  redisMs: 1,
} as DecisionEvent;

describe("createEventSink", () => {
  it("Should still write every data point when the onEvent callback throws, and log the failure once", () => {
    const logs: LogEntry[] = [];
    const points: unknown[] = [];
    const dataset = { writeDataPoint: (point: unknown) => points.push(point) };
    const send = createEventSink({
      client: "none",
      secret: "s3cret-token",
      onEvent: () => {
        throw new Error("callback failed");
      },
      log: (entry) => logs.push(entry),
    });
    for (let i = 0; i < 3; i++)
      send(
        () => event,
        "203.0.113.7",
        dataset,
        () => {},
      );
    expect(points).toHaveLength(3);
    expect(logs).toEqual([{ level: "warn", event: "analytics-failure", cause: "callback failed" }]);
  });
});
