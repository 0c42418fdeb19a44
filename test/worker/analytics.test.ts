import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { LogEntry } from "../../src/middleware/rate-limit/log.ts";
import { testApp, uniqueIpv4 } from "./helpers.ts";

describe("decision events in workerd's Analytics Engine binding", () => {
  it("Should write one data point per request through the real binding, without an error", async () => {
    const points: unknown[] = [];
    const dataset = env.RATEWALL_ANALYTICS!;
    const counted = {
      writeDataPoint: (point: AnalyticsEngineDataPoint) => {
        points.push(point);
        dataset.writeDataPoint(point);
      },
    };
    const t = testApp({ RATE_LIMIT: "1/1m" });
    const ip = uniqueIpv4();
    const request = () => t.app.request("https://example.com/", { headers: { "cf-connecting-ip": ip } }, { ...env, RATEWALL_ANALYTICS: counted });
    expect((await request()).status).toBe(200);
    expect((await request()).status).toBe(429);
    expect((await request()).status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(points.map((point) => (point as { blobs: string[] }).blobs[0])).toEqual(["allowed", "refused", "block-cache"]);
    expect(t.logs.filter((entry: LogEntry) => entry.event === "analytics-failure")).toEqual([]);
  });

  it("Should name the rule and algorithm of the client's own tier, not the route's default tier", async () => {
    const ADMIN_TOKEN = "adm1n-t0ken-for-the-analytics-tier-test-0123456789";
    const points: Array<{ blobs: string[]; doubles: number[] }> = [];
    const counted = { writeDataPoint: (point: AnalyticsEngineDataPoint) => void points.push(point as { blobs: string[]; doubles: number[] }) };
    const t = testApp({
      ADMIN_TOKEN,
      TIERS: {
        free: "2/1m",
        pro: [{ name: "default", limit: 10, window: "1m", algorithm: "token-bucket" }],
        gold: [{ limit: 50, window: "1m", algorithm: "sliding-log" }],
      },
      ROUTES: [{ pattern: "*/api/*", name: "api", tiers: "free" }],
    });
    const [pro, gold, free] = [uniqueIpv4(), uniqueIpv4(), uniqueIpv4()];
    const admin = (path: string) => t.admin(path, "POST");
    expect((await admin(`tier?client=${pro}&tier=pro`)).status).toBe(200);
    expect((await admin(`tier?client=${gold}&tier=gold`)).status).toBe(200);
    for (const ip of [pro, gold, free]) {
      await t.app.request("https://example.com/api/x", { headers: { "cf-connecting-ip": ip } }, { ...env, RATEWALL_ANALYTICS: counted });
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(points.map((point) => [point.blobs[2], point.blobs[3], point.doubles[0]])).toEqual([
      ["default", "token-bucket", 10],
      ["default", "sliding-log", 50],
      ["default", "fixed-window", 2],
    ]);
  });

  it("Should serve the deployed Worker with the dataset bound", async () => {
    expect(typeof env.RATEWALL_ANALYTICS?.writeDataPoint).toBe("function");
    const res = await exports.default.fetch("https://example.com/analytics", { headers: { "cf-connecting-ip": uniqueIpv4() } });
    expect(res.status).toBe(200);
  });
});
