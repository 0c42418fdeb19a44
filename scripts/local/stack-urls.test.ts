import { describe, expect, it } from "vitest";
import { stackUrls } from "./stack-urls.ts";

describe("stackUrls", () => {
  it("Should start its own Redis and origin when RATEWALL_REDIS_URL and ORIGIN_URL are unset or empty, as the Worker reads an empty variable", () => {
    expect(stackUrls({})).toEqual({});
    expect(stackUrls({ RATEWALL_REDIS_URL: "", ORIGIN_URL: "" })).toEqual({});
  });

  it("Should use the Redis and the origin named", () => {
    expect(stackUrls({ RATEWALL_REDIS_URL: "redis://127.0.0.1:6380", ORIGIN_URL: "http://127.0.0.1:3000" })).toEqual({
      redisUrl: "redis://127.0.0.1:6380",
      originUrl: "http://127.0.0.1:3000",
    });
  });

  it("Should refuse a RATEWALL_REDIS_URL that is no redis:// URL, naming the variable and masking its password", () => {
    expect(() => stackUrls({ RATEWALL_REDIS_URL: "garbage" })).toThrowError(
      'RATEWALL_REDIS_URL: invalid URL "garbage" (expected redis://host:port or rediss://…)',
    );
    expect(() => stackUrls({ RATEWALL_REDIS_URL: "http://u:S3cr3t@h:1" })).toThrowError('RATEWALL_REDIS_URL: invalid URL "http://***@h:1"');
  });

  it("Should refuse a redis:// URL that does not parse, naming the variable, before anything starts", () => {
    expect(() => stackUrls({ RATEWALL_REDIS_URL: "redis://u:S3cret@127.0.0.1:99999" })).toThrowError(
      'RATEWALL_REDIS_URL: invalid URL "redis://***@127.0.0.1:99999"',
    );
    expect(() => stackUrls({ RATEWALL_REDIS_URL: "redis://u:S3cret@[::1" })).toThrowError(/RATEWALL_REDIS_URL: invalid URL/);
  });
});
