/**
 * @module Where decision events go: the `RATEWALL_ANALYTICS` Analytics Engine dataset when the
 * Worker has one bound, and an `onEvent` callback for embedders and tests. Nothing here may slow
 * or fail a request: `writeDataPoint` is fire-and-forget by design, a binding or callback that
 * throws (or an async callback that rejects) is logged once and ignored, and hashing a client the isolate has not seen yet runs
 * after the response, under `waitUntil` when there is one.
 *
 * The hash is an HMAC-SHA-256 keyed with the Upstash token: a plain hash of an IPv4 address is
 * undone by hashing all 2^32 of them, a keyed one is not without the secret. The same client hashes
 * alike in every isolate, so "top clients" queries work; rotating the token changes every hash.
 */
import { attempt, type Logger } from "../middleware/rate-limit/log.ts";
import type { Settings } from "../config/types.ts";
import { ENCODER, first128Hex } from "../keys/identify.ts";
import { isAnalyticsDataset, toDataPoint } from "./analytics-engine.ts";
import type { DecisionEvent } from "./decision-event.ts";

/**
 * Sends one event; `dataset` is the request's `env.RATEWALL_ANALYTICS`, if any. The event is
 * built by `build`, called only when something receives it: most Workers bind no dataset.
 */
export type EventSink = (build: () => DecisionEvent, client: string | undefined, dataset: unknown, defer: (work: Promise<unknown>) => void) => void;

/** Hashed clients remembered per isolate: a flood from one client hashes once, not per request. */
const HASHES_KEPT = 10_000;

/**
 * Creates the sink for one isolate's settings.
 *
 * @example
 * const send = createEventSink({ client: "hashed", secret: settings.redis.token, log });
 * send(() => event, "203.0.113.7", env.RATEWALL_ANALYTICS, (work) => ctx.waitUntil(work));
 */
export function createEventSink(options: {
  client: Settings["analytics"]["client"];
  secret: string;
  onEvent?: (event: DecisionEvent) => void;
  log: Logger;
}): EventSink {
  const hashes = new Map<string, string>();
  const hash = keyedHash(options.secret);
  let failureLogged = false;
  const failed = (error: unknown) => {
    if (failureLogged) return;
    failureLogged = true;
    options.log({ level: "warn", event: "analytics-failure", cause: error instanceof Error ? error.message : String(error) });
  };
  // Each receiver on its own: a callback that throws must not cost the dataset its point. An
  // async callback's rejection is caught too (Node exits on an unhandled one), and its promise is
  // handed back, for `waitUntil`.
  const deliver = (event: DecisionEvent, dataset: unknown) => {
    const { onEvent } = options;
    const pending = onEvent && attempt(() => onEvent(event), failed);
    if (isAnalyticsDataset(dataset)) attempt(() => dataset.writeDataPoint(toDataPoint(event)), failed);
    return pending;
  };
  /** Delivers at once; an async `onEvent`'s promise goes to `defer`. */
  const deliverNow = (event: DecisionEvent, dataset: unknown, defer: (work: Promise<unknown>) => void) => {
    const pending = deliver(event, dataset);
    if (pending) defer(pending);
  };
  return (build, client, dataset, defer) => {
    if (options.onEvent === undefined && !isAnalyticsDataset(dataset)) return;
    const event = build();
    if (options.client === "none" || client === undefined) return deliverNow(event, dataset, defer);
    if (options.client === "plain") return deliverNow({ ...event, client }, dataset, defer);
    const hashed = hashes.get(client);
    if (hashed !== undefined) return deliverNow({ ...event, client: hashed }, dataset, defer);
    defer(
      hash(client).then(
        (digest) => {
          if (hashes.size >= HASHES_KEPT) hashes.clear();
          hashes.set(client, digest);
          return deliver({ ...event, client: digest }, dataset);
        },
        () => deliver(event, dataset),
      ),
    );
  };
}

/** HMAC-SHA-256 of a value under `secret`, first 128 bits in hex; the key is imported once. */
function keyedHash(secret: string): (value: string) => Promise<string> {
  let key: ReturnType<typeof crypto.subtle.importKey> | undefined;
  return async (value) => {
    key ??= crypto.subtle.importKey("raw", ENCODER.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    return first128Hex(await crypto.subtle.sign("HMAC", await key, ENCODER.encode(value)));
  };
}
