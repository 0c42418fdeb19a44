/**
 * @module Decision events as Workers Analytics Engine data points. The layout (README, "Operating
 * ratewall", which gives the SQL over it) is fixed by position, so it only ever grows at the end:
 *
 * | field | value |
 * |---|---|
 * | index1 | route (the sampling key: each route is sampled on its own) |
 * | blob1–blob7 | outcome, route, rule, algorithm, client, country, colo |
 * | double1–double4 | limit, remaining, near limit (1 or 0), Redis call ms |
 */
import type { DecisionEvent } from "./decision-event.ts";

/** What the binding takes (`AnalyticsEngineDataset` in the Workers types), narrowed. */
export interface AnalyticsDataset {
  writeDataPoint(point: { indexes?: string[]; blobs?: string[]; doubles?: number[] }): void;
}

/** Analytics Engine's limit on an index, in bytes. */
const MAX_INDEX_BYTES = 96;

/**
 * The data point of one event.
 *
 * @example
 * toDataPoint({ outcome: "refused", route: "login", rule: "default", algorithm: "fixed-window", limit: 5, remaining: 0, nearLimit: true, redisMs: 2 });
 * // { indexes: ["login"], blobs: ["refused", "login", "default", "fixed-window", "", "", ""], doubles: [5, 0, 1, 2] }
 */
export function toDataPoint(event: DecisionEvent): { indexes: string[]; blobs: string[]; doubles: number[] } {
  return {
    indexes: [fitIndex(event.route)],
    blobs: [event.outcome, event.route, event.rule, event.algorithm, event.client ?? "", event.country ?? "", event.colo ?? ""],
    doubles: [event.limit, event.remaining, event.nearLimit ? 1 : 0, event.redisMs],
  };
}

/**
 * A route pattern can be longer than an index may be: cut it on a character boundary. Sizes are
 * counted, not encoded (the event is built on the request's path): a UTF-16 code unit is at most
 * 3 bytes of UTF-8, so a short route is returned at once.
 */
function fitIndex(route: string): string {
  if (route.length * 3 <= MAX_INDEX_BYTES) return route;
  let bytes = 0;
  let end = 0;
  for (const char of route) {
    const point = char.codePointAt(0)!;
    // UTF-8's sizes (RFC 3629 §3); a lone surrogate is sent as U+FFFD, 3 bytes, like any other BMP point.
    bytes += point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
    if (bytes > MAX_INDEX_BYTES) return route.slice(0, end);
    end += char.length;
  }
  return route;
}

/** True when `value` looks like an Analytics Engine binding. */
export function isAnalyticsDataset(value: unknown): value is AnalyticsDataset {
  return typeof (value as AnalyticsDataset | undefined)?.writeDataPoint === "function";
}
