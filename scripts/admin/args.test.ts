import { describe, expect, it } from "vitest";
import { AdminUsageError, parseAdminArgs } from "./args.ts";

const env = { RATEWALL_ADMIN_TOKEN: "t".repeat(32) };

describe("the admin CLI's arguments", () => {
  it("Should read a status command with the default URL, the default route and the token from RATEWALL_ADMIN_TOKEN", () => {
    expect(parseAdminArgs(["status", "203.0.113.7"], env)).toEqual({
      command: { name: "status", target: { by: "client", value: "203.0.113.7" } },
      url: "http://127.0.0.1:8787",
      token: env.RATEWALL_ADMIN_TOKEN,
      json: false,
    });
  });

  it("Should take flags before or after the positional, and send the value as key= with --key", () => {
    expect(parseAdminArgs(["--json", "reset", "--route", "api", "k-123", "--key", "--url", "https://rl.example.com/"], env)).toEqual({
      command: { name: "reset", target: { by: "key", value: "k-123" }, route: "api" },
      url: "https://rl.example.com",
      token: env.RATEWALL_ADMIN_TOKEN,
      json: true,
    });
  });

  it("Should read config and lists without a client, and treat --help as a request for the usage even without a token", () => {
    expect(parseAdminArgs(["config"], env)?.command).toEqual({ name: "config" });
    expect(parseAdminArgs(["lists"], env)?.command).toEqual({ name: "lists" });
    expect(parseAdminArgs(["lists", "--copy"], env)?.command).toEqual({ name: "lists", copy: true });
    expect(() => parseAdminArgs(["deny", "203.0.113.7", "--copy"], env)).toThrow("deny: --copy only applies to lists");
    expect(() => parseAdminArgs(["lists", "203.0.113.7"], env)).toThrow('lists: unexpected argument "203.0.113.7"');
    expect(parseAdminArgs(["status", "--help"], {})).toBeUndefined();
    expect(parseAdminArgs(["-h"], {})).toBeUndefined();
  });

  it.each([
    [[], "missing command (expected status, reset, deny, allow, tier, lists, config)"],
    [["stats", "1.2.3.4"], 'unknown command "stats" (expected status, reset, deny, allow, tier, lists, config)'],
    [["status"], "status: missing <client> (an IP address or client id; with --key, the raw key header value)"],
    [["reset", ""], "reset: missing <client> (an IP address or client id; with --key, the raw key header value)"],
    [["status", "1.2.3.4", "5.6.7.8"], 'status: unexpected argument "5.6.7.8"'],
    [["status", "1.2.3.4", "--route", ""], "--route: empty route name (omit --route for the default route)"],
    [["config", "1.2.3.4"], 'config: unexpected argument "1.2.3.4"'],
    [["config", "--route", "api"], "config: --route only applies to status and reset"],
    [["config", "--key"], "config: --key only applies to status, reset, deny, allow and tier"],
    [["deny", "1.2.3.4", "--route", "api"], "deny: --route only applies to status and reset"],
    [["status", "1.2.3.4", "--ttl", "60"], "status: --ttl only applies to deny and allow"],
    [["tier", "1.2.3.4", "pro", "--ttl", "60"], "tier: --ttl only applies to deny and allow"],
    [["reset", "1.2.3.4", "--remove"], "reset: --remove only applies to deny, allow and tier"],
    [["deny", "1.2.3.4", "--ttl", "0"], '--ttl: invalid "0" (expected whole seconds, at least 1)'],
    [["allow", "1.2.3.4", "--ttl", "1.5"], '--ttl: invalid "1.5" (expected whole seconds, at least 1)'],
    [["deny", "1.2.3.4", "--ttl", "60", "--remove"], "deny: --ttl and --remove do not go together"],
    [["deny", "1.2.3.4", "5.6.7.8"], 'deny: unexpected argument "5.6.7.8"'],
    [["tier", "1.2.3.4"], "tier: missing <tier> (a tier of TIERS; --remove takes the client's tier away)"],
    [["tier", "1.2.3.4", "pro", "free"], 'tier: unexpected argument "free"'],
    [["tier", "1.2.3.4", "pro", "--remove"], 'tier: --remove takes no <tier> (got "pro"): it takes the client\'s tier away, whichever it is'],
    [["config", "--url", "127.0.0.1:8787"], '--url: invalid URL "127.0.0.1:8787" (expected the Worker\'s origin, http(s)://host[:port])'],
    [["config", "--url", "ftp://h"], '--url: invalid URL "ftp://h" (expected the Worker\'s origin, http(s)://host[:port])'],
    [["config", "--url", "http://h/__ratewall/"], '--url: invalid URL "http://h/__ratewall/" (expected the Worker\'s origin, http(s)://host[:port])'],
  ])("Should refuse %j with a message saying what is wrong", (argv, message) => {
    expect(() => parseAdminArgs(argv, env)).toThrowError(new AdminUsageError(message));
  });

  it("Should refuse to run without RATEWALL_ADMIN_TOKEN, naming the variable", () => {
    const message = "RATEWALL_ADMIN_TOKEN is not set (export the Worker's ADMIN_TOKEN as RATEWALL_ADMIN_TOKEN)";
    expect(() => parseAdminArgs(["config"], {})).toThrowError(new AdminUsageError(message));
    expect(() => parseAdminArgs(["config"], { RATEWALL_ADMIN_TOKEN: "" })).toThrowError(new AdminUsageError(message));
    expect(() => parseAdminArgs(["config"], { RATEWALL_ADMIN_TOKEN: " \n" })).toThrowError(
      new AdminUsageError("RATEWALL_ADMIN_TOKEN holds only spaces or line breaks (export the Worker's ADMIN_TOKEN as RATEWALL_ADMIN_TOKEN)"),
    );
  });

  it("Should refuse a token that no Authorization header can carry, naming the character and not the token, as a usage error", () => {
    expect(() => parseAdminArgs(["config"], { RATEWALL_ADMIN_TOKEN: `${"t".repeat(16)}\u0001${"t".repeat(16)}` })).toThrowError(
      new AdminUsageError(
        "RATEWALL_ADMIN_TOKEN contains U+0001 at character 17, which a Bearer token cannot carry (the Worker's ADMIN_TOKEN is visible ASCII)",
      ),
    );
    // A space inside, or a letter beyond ASCII, would reach the Worker and count towards its lockout.
    for (const [inside, named] of [
      [" ", "U+0020"],
      ["é", "U+00E9"],
    ]) {
      expect(() => parseAdminArgs(["config"], { RATEWALL_ADMIN_TOKEN: `${"t".repeat(16)}${inside}${"t".repeat(16)}` }), named).toThrowError(
        new AdminUsageError(
          `RATEWALL_ADMIN_TOKEN contains ${named} at character 17, which a Bearer token cannot carry (the Worker's ADMIN_TOKEN is visible ASCII)`,
        ),
      );
    }
    // A line break at its end, as a file read into the variable leaves, is not the token's.
    expect(parseAdminArgs(["config"], { RATEWALL_ADMIN_TOKEN: `${"t".repeat(32)}\n` })?.token).toBe("t".repeat(32));
  });

  it("Should refuse unknown flags and flags without their value by name", () => {
    expect(() => parseAdminArgs(["status", "1.2.3.4", "--token", "x"], env)).toThrowError(/'--token'/);
    expect(() => parseAdminArgs(["status", "1.2.3.4", "--route"], env)).toThrowError(/'--route <value>' argument missing/);
  });

  it("Should read deny, allow and tier, with a TTL, a raw key or --remove", () => {
    const client = { by: "client", value: "203.0.113.7" };
    expect(parseAdminArgs(["deny", "203.0.113.7", "--ttl", "600"], env)?.command).toEqual({ name: "deny", target: client, ttlSeconds: 600 });
    expect(parseAdminArgs(["allow", "k-1", "--key"], env)?.command).toEqual({ name: "allow", target: { by: "key", value: "k-1" } });
    expect(parseAdminArgs(["deny", "203.0.113.7", "--remove"], env)?.command).toEqual({ name: "deny", target: client, remove: true });
    expect(parseAdminArgs(["tier", "203.0.113.7", "pro"], env)?.command).toEqual({ name: "tier", target: client, tier: "pro" });
    expect(parseAdminArgs(["tier", "203.0.113.7", "--remove"], env)?.command).toEqual({ name: "tier", target: client, remove: true });
  });
});
