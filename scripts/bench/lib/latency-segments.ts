/**
 * @module Where one request's latency goes, from a packet capture on loopback (`tcpdump -n -tt`):
 * the time between the first data packet of each hop. Requests are sent one at a time, so on each
 * Worker's port one request's packets never mix with the next one's, and every hop is the first
 * data packet in its direction after the request arrived. Pure: the CLI (../latency-trace.ts)
 * captures and sends.
 */
import { median } from "./stats.ts";

/** One TCP packet with data, as `tcpdump -n -tt` prints it. */
export interface Packet {
  /** Seconds since the epoch. */
  at: number;
  from: number;
  to: number;
  bytes: number;
}

/** The moments of one request, seconds; the Worker's own hops in the order they happen. */
export interface Timeline {
  arrived: number;
  toShim?: number;
  toRedis?: number;
  fromRedis?: number;
  fromShim?: number;
  toOrigin?: number;
  fromOrigin?: number;
  answered?: number;
}

/** The ports of the stack: every Worker's by name, and the shim's, Redis's and the origin's. */
export interface StackPorts {
  workers: Record<string, number>;
  shim: number;
  redis: number;
  origin: number;
}

/** The segments reported, each from one moment to the next, and the whole. */
export const SEGMENTS = [
  { name: "Worker, before the Redis call", from: "arrived", to: "toShim" },
  { name: "shim, request to Redis", from: "toShim", to: "toRedis" },
  { name: "Redis", from: "toRedis", to: "fromRedis" },
  { name: "shim, reply to the Worker", from: "fromRedis", to: "fromShim" },
  { name: "Worker, between the reply and the origin", from: "fromShim", to: "toOrigin" },
  { name: "origin", from: "toOrigin", to: "fromOrigin" },
  { name: "Worker, answering", from: "fromOrigin", to: "answered" },
  { name: "whole request", from: "arrived", to: "answered" },
] as const satisfies ReadonlyArray<{ name: string; from: keyof Timeline; to: keyof Timeline }>;

const LINE = /^(\d+\.\d+) IP6? [\d.:a-f]+\.(\d+) > [\d.:a-f]+\.(\d+): .*length (\d+)/;

/**
 * Reads one line of `tcpdump -n -tt` output; `undefined` for anything but a TCP packet with data.
 *
 * @example
 * parsePacket("1764770000.000100 IP 127.0.0.1.40000 > 127.0.0.1.8787: Flags [P.], seq 1:80, ack 1, win 512, length 79");
 * // → { at: 1764770000.0001, from: 40000, to: 8787, bytes: 79 }
 */
export function parsePacket(line: string): Packet | undefined {
  const match = LINE.exec(line);
  if (!match || match[4] === "0") return undefined;
  return { at: Number(match[1]), from: Number(match[2]), to: Number(match[3]), bytes: Number(match[4]) };
}

/**
 * Cuts packets, in capture order, into one timeline per request and Worker. A request starts with
 * data sent to a Worker's port while none is open, and ends with the Worker's first data back.
 * A request that lacks a hop (a Worker that made no Redis call, say) keeps that hop undefined.
 *
 * @example
 * const byWorker = timelines(packets, { workers: { floor: 41001 }, shim: 41002, redis: 41003, origin: 41004 });
 */
export function timelines(packets: Iterable<Packet>, ports: StackPorts): Map<string, Timeline[]> {
  const names = new Map(Object.entries(ports.workers).map(([name, port]) => [port, name]));
  const done = new Map<string, Timeline[]>();
  let open: { worker: string; port: number; timeline: Timeline } | undefined;
  const first = (hop: Exclude<keyof Timeline, "arrived">, at: number) => {
    if (open && open.timeline[hop] === undefined) open.timeline[hop] = at;
  };
  for (const packet of packets) {
    if (!open) {
      const worker = names.get(packet.to);
      if (worker !== undefined) open = { worker, port: packet.to, timeline: { arrived: packet.at } };
      continue;
    }
    if (packet.from === open.port) {
      open.timeline.answered = packet.at;
      const requests = done.get(open.worker) ?? [];
      requests.push(open.timeline);
      done.set(open.worker, requests);
      open = undefined;
    } else if (packet.to === ports.shim) first("toShim", packet.at);
    else if (packet.to === ports.redis) first("toRedis", packet.at);
    else if (packet.from === ports.redis) first("fromRedis", packet.at);
    else if (packet.from === ports.shim) first("fromShim", packet.at);
    else if (packet.to === ports.origin) first("toOrigin", packet.at);
    else if (packet.from === ports.origin) first("fromOrigin", packet.at);
  }
  return done;
}

/**
 * The median of each segment over the requests that have both its ends, µs.
 *
 * @example
 * medianSegments(byWorker.get("floor")!); // → { "Redis": 36, …, "whole request": 1212 }
 */
export function medianSegments(requests: readonly Timeline[]): Record<(typeof SEGMENTS)[number]["name"], number> {
  const out = {} as Record<(typeof SEGMENTS)[number]["name"], number>;
  for (const { name, from, to } of SEGMENTS) {
    out[name] = median(requests.flatMap((r) => (r[from] !== undefined && r[to] !== undefined ? [(r[to]! - r[from]!) * 1e6] : [])));
  }
  return out;
}
