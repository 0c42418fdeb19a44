import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedisServer, type RedisServer } from "../../../scripts/local/redis-server.ts";
import { rssKiB } from "../../../scripts/local/process-memory.ts";
import { spawnShim, type ShimProcess } from "../../../scripts/local/shim-process.ts";
import { send } from "./processes.ts";

// 10,000+ hostile bodies against the shim run from its CLI, in its own process, so that a crash
// is an exit and its memory can be read. The commands that can be valid are harmless reads or
// refused ones; the Redis is a throwaway one anyway.
const TOKEN = "fuzz-token-7c1e";
const H = { authorization: `Bearer ${TOKEN}` };
const MAX_BODY = 256 * 1024;
const BATCH = 8;
const RUNS = 1300;

let redis: RedisServer;
let shim: ShimProcess;
beforeAll(async () => {
  redis = await startRedisServer();
  shim = await spawnShim(["--redis-url", redis.url, "--token", TOKEN, "--max-body-bytes", String(MAX_BODY)]);
});
afterAll(async () => {
  await shim?.stop();
  await redis?.stop();
});

/** A body, where it goes, and whether it can be a valid request at all. */
interface Probe {
  kind: string;
  path: string;
  method?: string;
  body: string | Uint8Array | undefined;
  /** false: nothing in it can run, so the answer must be a 4xx. */
  mayRun: boolean;
}

const HARMLESS = ["PING", "ECHO", "EXISTS", "GET", "STRLEN", "TYPE", "TTL", "MGET"];
const REFUSED = ["SELECT", "CONFIG", "SHUTDOWN", "DEBUG", "CLIENT", "MONITOR", "SUBSCRIBE", "MODULE", "AUTH", "MULTI", "BLPOP"];
const anyCase = (name: string) =>
  fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }).map((upper) => [...name].map((c, i) => (upper[i] ? c : c.toLowerCase())).join(""));
// "fz…" is no Redis command: Redis answers it with "unknown command".
const name = fc.oneof(
  fc.constantFrom(...HARMLESS, ...REFUSED).chain(anyCase),
  fc.string({ maxLength: 12 }).map((s) => `fz${s}`),
);
const arg = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.oneof(
      fc.string({ maxLength: 30 }).map((s) => `fuzz:${s}`),
      fc.integer(),
      fc.double(),
      fc.boolean(),
    ),
  },
  { weight: 1, arbitrary: fc.oneof(fc.constant(null), fc.jsonValue({ maxDepth: 3 }), fc.string({ unit: "binary", maxLength: 200 })) },
);
const command = fc.tuple(name, fc.array(arg, { maxLength: 8 })).map(([n, args]) => [n, ...args]);
const pipelinePath = fc.constantFrom("/pipeline", "/multi-exec");
const anyPath = fc.constantFrom("/", "/pipeline", "/multi-exec");

const probes: fc.Arbitrary<Probe> = fc.oneof(
  { weight: 20, arbitrary: command.map((c) => ({ kind: "command", path: "/", body: JSON.stringify(c), mayRun: true })) },
  {
    weight: 15,
    arbitrary: fc
      .tuple(pipelinePath, fc.array(command, { minLength: 1, maxLength: 20 }))
      .map(([path, cs]) => ({ kind: "pipeline", path, body: JSON.stringify(cs), mayRun: true })),
  },
  { weight: 12, arbitrary: fc.tuple(anyPath, fc.jsonValue()).map(([path, v]) => ({ kind: "wrong shape", path, body: JSON.stringify(v) ?? "", mayRun: true })) },
  // A proper prefix of a JSON array is never JSON: its closing bracket is missing.
  {
    weight: 12,
    arbitrary: fc.tuple(anyPath, command, fc.nat()).map(([path, c, cut]) => {
      const text = JSON.stringify([c]);
      return { kind: "truncated JSON", path, body: text.slice(0, cut % text.length), mayRun: false };
    }),
  },
  {
    weight: 10,
    arbitrary: fc
      .tuple(anyPath, fc.string({ unit: "binary", maxLength: 300 }))
      .filter(([, s]) => !isJson(s))
      .map(([path, s]) => ({ kind: "not JSON", path, body: s, mayRun: false })),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(anyPath, fc.integer({ min: 1, max: 50_000 }), fc.boolean())
      .map(([path, depth, closed]) => ({ kind: "deep nesting", path, body: "[".repeat(depth) + (closed ? "]".repeat(depth) : ""), mayRun: false })),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.constantFrom("EXISTS", "ECHO", "MGET", "fzNOPE"), fc.integer({ min: 1_000, max: 15_000 })).map(([n, count]) => ({
      kind: "huge argument count",
      path: "/",
      body: JSON.stringify([n, ...Array.from({ length: count }, (_, i) => `fuzz:${i}`)]),
      mayRun: true,
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1_000, max: 3_000 })
      .map((count) => ({ kind: "huge pipeline", path: "/pipeline", body: JSON.stringify(Array.from({ length: count }, () => ["PING"])), mayRun: true })),
  },
  {
    weight: 8,
    arbitrary: fc.tuple(anyPath, fc.uint8Array({ minLength: 1, maxLength: 200 })).map(([path, bytes]) => ({
      kind: "invalid UTF-8",
      path,
      body: Buffer.concat([Buffer.from('["ECHO","'), Buffer.from(bytes.map((b) => (b === 0x22 || b === 0x5c ? 0xff : b | 0x80))), Buffer.from('"]')]),
      mayRun: true,
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 50_000, max: MAX_BODY - 100 })
      .map((size) => ({ kind: "enormous string", path: "/", body: JSON.stringify(["ECHO", "x".repeat(size)]), mayRun: true })),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: MAX_BODY + 1, max: 3 * MAX_BODY })
      .map((size) => ({ kind: "over the size limit", path: "/", body: JSON.stringify(["ECHO", "x".repeat(size)]), mayRun: false })),
  },
  {
    weight: 6,
    arbitrary: fc.tuple(name, fc.array(fc.string({ unit: "binary", maxLength: 20 }), { maxLength: 5 })).map(([n, segments]) => ({
      kind: "path form",
      method: "GET",
      path: `/${[n, ...segments].map(encodeURIComponent).join("/")}`,
      body: undefined,
      mayRun: true,
    })),
  },
);

/** A failing probe is reported by kind, size and its first bytes, not as megabytes of text. */
const described = probes.map((probe) => ({
  ...probe,
  [fc.toStringMethod]: () => {
    const bytes = probe.body === undefined ? Buffer.alloc(0) : Buffer.from(probe.body);
    return `${probe.kind}: ${probe.method ?? "POST"} ${probe.path.slice(0, 80)} (${bytes.length} bytes) ${JSON.stringify(bytes.subarray(0, 120).toString("latin1"))}`;
  },
}));

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe("the shim under a fuzz of hostile bodies", () => {
  it("Should answer 413 JSON to a body megabytes over the limit, instead of closing on a client still writing", async () => {
    const sizes = [1.1, 2, 3, 4, 5, 6, 7, 7.9].map((times) => Math.round(times * MAX_BODY));
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(sizes.map((size) => send(shim.url, "/", JSON.stringify(["ECHO", "x".repeat(size)]), H)));
      for (const answer of answers) {
        expect(answer).toEqual({ status: 413, contentType: "application/json", body: `{"error":"ERR max request size exceeded (${MAX_BODY} bytes)"}` });
      }
    }
  });

  it(`Should answer each of ${BATCH * RUNS} bodies with JSON and a 4xx (200 only for harmless commands), never crash, and keep its memory bounded`, async () => {
    const rss: number[] = [rssKiB(shim.pid)];
    const kinds = new Map<string, number>();
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(described, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        const answers = await Promise.all(batch.map((probe) => send(shim.url, probe.path, probe.body, H, probe.method)));
        answers.forEach((answer, i) => {
          const probe = batch[i]!;
          kinds.set(probe.kind, (kinds.get(probe.kind) ?? 0) + 1);
          expect(answer.contentType).toBe("application/json");
          expect(() => JSON.parse(answer.body)).not.toThrow();
          expect(answer.status === 200 ? probe.mayRun : answer.status >= 400 && answer.status < 500).toBe(true);
        });
        if (++sent % 100 === 0) rss.push(rssKiB(shim.pid));
      }),
      { numRuns: RUNS, seed: 20261202, endOnFailure: true },
    );
    rss.push(rssKiB(shim.pid));
    console.log(
      `shim RSS (MiB) every ${BATCH * 100} bodies: ${rss.map((kib) => Math.round(kib / 1024)).join(" ")}; bodies by kind: ${JSON.stringify(Object.fromEntries(kinds))}`,
    );

    expect(shim.child.exitCode).toBeNull();
    expect(await send(shim.url, "/", '["PING"]', H)).toMatchObject({ status: 200, body: '{"result":"PONG"}' });
    // Bounded: a few bodies at the size limit in flight at once, not a leak per request.
    const settled = rss.slice(Math.floor(rss.length / 2));
    expect(Math.max(...rss) / 1024).toBeLessThan(400);
    expect(Math.max(...settled) - Math.min(...settled)).toBeLessThan(96 * 1024);
  }, 120_000);
});
