import { describe, expect, it } from "vitest";
import { CliUsageError, isLoopback, maskCredentials, parseCliOptions } from "./cli-options.ts";

describe("the shim CLI's options", () => {
  it("Should default to loopback on 8079 and fall back to REDIS_URL and UPSTASH_REDIS_REST_TOKEN", () => {
    expect(parseCliOptions([], { REDIS_URL: "redis://127.0.0.1:6390", UPSTASH_REDIS_REST_TOKEN: "t" })).toEqual({
      port: 8079,
      host: "127.0.0.1",
      redisUrl: "redis://127.0.0.1:6390",
      cluster: false,
      token: "t",
      maxBodyBytes: 10 * 1024 * 1024,
    });
  });

  it("Should prefer flags over the environment", () => {
    const options = parseCliOptions(["--port", "0", "--redis-url", "redis://h:1", "--token", "flag"], { UPSTASH_REDIS_REST_TOKEN: "env" });
    expect(options).toMatchObject({ port: 0, redisUrl: "redis://h:1", token: "flag" });
  });

  it("Should take --cluster to mean that the Redis URL is one node of a Redis Cluster", () => {
    expect(parseCliOptions(["--cluster", "--token", "t"], {})).toMatchObject({ cluster: true });
  });

  it.each([
    [["--port", "80a", "--token", "t"], '--port: invalid value "80a" (expected an integer from 0 to 65535)'],
    [["--port", "70000", "--token", "t"], '--port: invalid value "70000" (expected an integer from 0 to 65535)'],
    [["--redis-url", "http://h", "--token", "t"], '--redis-url: invalid URL "http://h" (expected redis://host:port or rediss://…)'],
    [["--max-body-bytes", "0", "--token", "t"], '--max-body-bytes: invalid value "0" (expected an integer from 1 to 9007199254740991)'],
    [[], "no token: pass --token <secret> or set UPSTASH_REDIS_REST_TOKEN (the shim never runs without one)"],
    [["--token", "  "], "no token: pass --token <secret> or set UPSTASH_REDIS_REST_TOKEN (the shim never runs without one)"],
  ])("Should refuse %j with a message naming the flag and value", (argv, message) => {
    expect(() => parseCliOptions(argv, {})).toThrowError(new CliUsageError(message));
  });

  it.each(["redis://admin:S3cr3t pass@db:6379", "redis//admin:S3cr3t@db:6379", "redis://admin:S3cr3t\r@db:6379", "redis://admin:S3cr3t\n@db:6379"])(
    "Should refuse the invalid URL %j without printing its password",
    (url) => {
      expect(() => parseCliOptions(["--redis-url", url, "--token", "t"], {})).toThrowError(/invalid URL/);
      expect(() => parseCliOptions(["--redis-url", url, "--token", "t"], {})).not.toThrowError(/S3cr3t/);
    },
  );

  it("Should show what is wrong with an invalid URL, its credentials masked", () => {
    expect(() => parseCliOptions(["--redis-url", "redis//admin:S3cr3t@db:6379", "--token", "t"], {})).toThrowError(/"redis\/\/\*\*\*@db:6379"/);
  });

  it("Should refuse unknown flags by name", () => {
    expect(() => parseCliOptions(["--prot", "1"], {})).toThrowError(/'--prot'/);
  });

  it("Should tell loopback hosts from others, and mask Redis passwords in logs", () => {
    expect([isLoopback("127.0.0.1"), isLoopback("::1"), isLoopback("0.0.0.0")]).toEqual([true, true, false]);
    expect(maskCredentials("redis://user:s3cret@h:6379")).toBe("redis://user:***@h:6379");
  });
});
