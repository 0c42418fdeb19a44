import { describe, expect, it } from "vitest";
import { medianSegments, parsePacket, timelines } from "./latency-segments.ts";

const ports = { workers: { floor: 41001, ratewall: 41005 }, shim: 41002, redis: 41003, origin: 41004 };

/** One request through `worker`, its hops `step` µs apart, as tcpdump prints them (with pure ACKs between). */
function request(worker: number, start: number, step: number): string[] {
  const hops: Array<[number, number]> = [
    [50000, worker],
    [50001, ports.shim],
    [50002, ports.redis],
    [ports.redis, 50002],
    [ports.shim, 50001],
    [50003, ports.origin],
    [ports.origin, 50003],
    [worker, 50000],
  ];
  return hops.flatMap(([from, to], i) => {
    const at = (start + (i * step) / 1e6).toFixed(6);
    return [
      `${at} IP 127.0.0.1.${from} > 127.0.0.1.${to}: Flags [P.], seq 1:80, ack 1, win 512, options [nop,nop,TS val 1 ecr 2], length 79`,
      `${at} IP 127.0.0.1.${to} > 127.0.0.1.${from}: Flags [.], ack 80, win 512, options [nop,nop,TS val 2 ecr 1], length 0`,
    ];
  });
}

/** The capture's lines cut into each Worker's request timelines, as the trace reads them. */
function timelinesOf(lines: string[]) {
  return timelines(
    lines.map(parsePacket).filter((p) => p !== undefined),
    ports,
  );
}

describe("latency segments from a loopback capture", () => {
  it("Should read a data packet's time, ports and length, over IPv4 or IPv6 loopback, and skip a pure ACK", () => {
    for (const hosts of ["IP 127.0.0.1.40000 > 127.0.0.1.8787", "IP6 ::1.40000 > ::1.8787"]) {
      expect(parsePacket(`1764770000.000100 ${hosts}: Flags [P.], seq 1:80, ack 1, win 512, length 79`)).toEqual({
        at: 1764770000.0001,
        from: 40000,
        to: 8787,
        bytes: 79,
      });
    }
    expect(parsePacket("1764770000.000100 IP 127.0.0.1.8787 > 127.0.0.1.40000: Flags [.], ack 80, win 512, length 0")).toBeUndefined();
    expect(parsePacket("reading from file -, link-type EN10MB (Ethernet)")).toBeUndefined();
  });

  it("Should cut sequential requests into one timeline each, per Worker, and give each segment's median", () => {
    const lines = [...request(ports.workers.floor, 100, 10), ...request(ports.workers.ratewall, 101, 20), ...request(ports.workers.floor, 102, 30)];
    const byWorker = timelinesOf(lines);
    expect(byWorker.get("floor")).toHaveLength(2);
    expect(byWorker.get("ratewall")).toHaveLength(1);
    const ratewall = medianSegments(byWorker.get("ratewall")!);
    expect(ratewall["Worker, before the Redis call"]).toBeCloseTo(20, 3);
    expect(ratewall.Redis).toBeCloseTo(20, 3);
    expect(ratewall["whole request"]).toBeCloseTo(140, 3);
    expect(medianSegments(byWorker.get("floor")!)["whole request"]).toBeCloseTo((70 + 210) / 2, 3);
  });

  it("Should time each hop by its first data packet, when a request or an answer spans several", () => {
    // Every message in two data packets, the second 1 µs after the first (headers, then a body).
    const lines = request(ports.workers.floor, 100, 10).flatMap((line) => {
      const packet = parsePacket(line);
      return packet === undefined ? [line] : [line, line.replace(/^\S+/, (packet.at + 1e-6).toFixed(6))];
    });
    const byWorker = timelinesOf(lines);
    expect(byWorker.get("floor")).toHaveLength(1);
    const floor = medianSegments(byWorker.get("floor")!);
    expect(floor["Worker, before the Redis call"]).toBeCloseTo(10, 3);
    expect(floor["whole request"]).toBeCloseTo(70, 3);
  });

  it("Should take each segment's median over the requests that made both its hops, leaving out one that skipped Redis", () => {
    const lines = [
      ...request(ports.workers.floor, 100, 10),
      // Answered without the shim and Redis (from a cache, say), then through the origin.
      ...request(ports.workers.floor, 101, 20).filter((line) => !line.includes(`.${ports.shim}`) && !line.includes(`.${ports.redis}`)),
      ...request(ports.workers.floor, 102, 30),
    ];
    const requests = timelinesOf(lines).get("floor")!;
    expect(requests).toHaveLength(3);
    expect(medianSegments(requests)["Worker, between the reply and the origin"]).toBeCloseTo((10 + 30) / 2, 3);
  });

  it("Should leave a hop a Worker never made out of its segments", () => {
    const lines = request(ports.workers.floor, 100, 10).filter((line) => !line.includes(`.${ports.redis}`));
    const [only] = timelinesOf(lines).get("floor")!;
    expect(only!.toRedis).toBeUndefined();
    expect(medianSegments([only!]).Redis).toBeNaN();
  });
});
