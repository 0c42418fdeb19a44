/**
 * @module The sliding-window check in TypeScript, line for line the Lua of ./script.ts. The packed
 * string is a JavaScript string of byte-valued characters, as Lua's strings are bytes; `fields` is
 * what the Lua reads it into.
 */
import type { RuleCheck, RuleParams } from "../algorithm.ts";
import { TTL_GRACE_MS } from "../assemble-script.ts";
import type { ModelStore } from "../memory/model-store.ts";
import { HEAD_BYTES } from "./script.ts";

interface Bucket {
  first: number;
  last: number;
  count: number;
  counted: number;
}

/** The model of `sliding-window`: the same reads, outcome and write as the Lua `check`, over {@link ModelStore}. */
export function checkSlidingWindow(store: ModelStore, keys: string[], now: number, cost: number, { limit, windowMs, buckets }: RuleParams): RuleCheck {
  const key = keys[0]!;
  const slots = buckets + 1;
  let countBytes = 1;
  while (256 ** countBytes <= limit + 1) countBytes = countBytes + 1;
  const record = countBytes + 2;
  const width = Math.ceil(windowMs / buckets);
  const tick = Math.max(Math.ceil((width - 1) / 255), 1);
  const raw = store.get<string>(key, now);
  const fields: Record<string, number> = {};
  if (raw !== undefined) {
    fields.h = numberAt(raw, 1, HEAD_BYTES);
    for (let slot = 0; slot <= slots - 1; slot++) {
      const at = HEAD_BYTES + slot * record + 1;
      const count = numberAt(raw, at, countBytes);
      if (count > 0) fields[String(slot)] = (count * 256 + byteAt(raw, at + countBytes)) * 256 + byteAt(raw, at + countBytes + 1);
    }
  }
  const head = fields.h ?? -1;
  const start = now - windowMs;
  const found: Bucket[] = [];
  let used = 0;
  let newest = now;
  for (let index = Math.max(Math.floor(start / width), head - slots + 1, 0); index <= head; index++) {
    const packed = fields[String(index % slots)];
    if (packed !== undefined) {
      const bucket: Bucket = {
        first: index * width + Math.min((Math.floor(packed / 256) % 256) * tick, width - 1),
        last: index * width + Math.min((packed % 256) * tick, width - 1),
        count: Math.floor(packed / 65536),
        counted: 0,
      };
      newest = bucket.last;
      if (start < bucket.first) bucket.counted = bucket.count;
      else if (start < bucket.last) bucket.counted = bucket.count - 1;
      else bucket.counted = 0;
      if (bucket.counted > 0) {
        used = used + bucket.counted;
        found.push(bucket);
      }
    }
  }
  const resetAt = used > 0 ? newest + windowMs : now;
  const ok = used + cost <= limit;
  let retryMs = 0;
  if (ok) retryMs = 0;
  else if (cost > limit) retryMs = resetAt - now;
  else {
    let excess = used + cost - limit;
    for (const bucket of found) {
      if (bucket.counted === bucket.count && bucket.first < bucket.last) {
        excess = excess - 1;
        if (excess <= 0) {
          retryMs = bucket.first + windowMs - now;
          break;
        }
        bucket.counted = bucket.counted - 1;
      }
      excess = excess - bucket.counted;
      if (excess <= 0) {
        retryMs = bucket.last + windowMs - now;
        break;
      }
    }
  }
  const at = Math.max(now, (head - slots + 1) * width);
  const index = Math.floor(at / width);
  const slot = String(index % slots);
  const ticks = Math.ceil((at - index * width) / tick);
  const chargedResetAt = Math.max(newest, index * width + Math.min(ticks * tick, width - 1)) + windowMs;
  return {
    ok,
    retryMs,
    remaining: limit - used,
    resetAt,
    chargedRemaining: limit - used - cost,
    chargedResetAt,
    charge() {
      let [count, first, last] = [cost, ticks, ticks];
      if (index > head) {
        for (let skipped = Math.max(head + 1, index - slots + 1); skipped <= index - 1; skipped++) {
          delete fields[String(skipped % slots)];
        }
        fields.h = index;
      } else if (fields[slot] !== undefined) {
        const packed = fields[slot]!;
        count = Math.floor(packed / 65536) + cost;
        first = Math.min(Math.floor(packed / 256) % 256, ticks);
        last = Math.max(packed % 256, ticks);
      }
      fields[slot] = (count * 256 + first) * 256 + last;
      const out = [bytesOf(fields.h!, HEAD_BYTES)];
      for (let n = 0; n <= slots - 1; n++) {
        const packed = fields[String(n)] ?? 0;
        out.push(bytesOf(Math.floor(packed / 65536), countBytes) + bytesOf(packed % 65536, 2));
      }
      store.set(key, out.join(""), chargedResetAt - now + TTL_GRACE_MS, now);
    },
  };
}

/** Lua's `string.byte(text, at)`: the byte at a 1-based offset. */
const byteAt = (text: string, at: number): number => text.charCodeAt(at - 1);

/** The Lua's `number_at`: a big-endian unsigned integer of `bytes` bytes at a 1-based offset. */
function numberAt(text: string, at: number, bytes: number): number {
  let value = 0;
  for (let n = at; n <= at + bytes - 1; n++) value = value * 256 + byteAt(text, n);
  return value;
}

/** The Lua's `bytes_of`: `value` as `bytes` big-endian bytes, the inverse of {@link numberAt}. */
function bytesOf(value: number, bytes: number): string {
  const out: string[] = [];
  for (let n = bytes; n >= 1; n--) {
    out[n - 1] = String.fromCharCode(value % 256);
    value = Math.floor(value / 256);
  }
  return out.join("");
}
