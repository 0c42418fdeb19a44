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

  it("Should serve the deployed Worker with the dataset bound", async () => {
    expect(typeof env.RATEWALL_ANALYTICS?.writeDataPoint).toBe("function");
    const res = await exports.default.fetch("https://example.com/analytics", { headers: { "cf-connecting-ip": uniqueIpv4() } });
    expect(res.status).toBe(200);
  });
});
