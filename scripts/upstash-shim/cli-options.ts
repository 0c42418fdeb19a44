/**
 * @module PURE: the shim CLI's flags and environment fallbacks, checked before anything starts.
 */
import { parseArgs } from "node:util";
import { usageErrors } from "../cli-usage.ts";
import { MAX_REQUEST_BYTES } from "./protocol.ts";

/** What the CLI starts the shim with. */
export interface CliOptions {
  /** @default 8079 (the URL in wrangler.toml's [vars]) */
  port: number;
  /** @default "127.0.0.1": loopback only, unless asked */
  host: string;
  /** `--redis-url`, else `REDIS_URL`. @default "redis://127.0.0.1:6379" */
  redisUrl: string;
  /** `--cluster`: `redisUrl` is one node of a Redis Cluster. */
  cluster: boolean;
  /** `--token`, else `UPSTASH_REDIS_REST_TOKEN`. Required. */
  token: string;
  /** @default 10 MB */
  maxBodyBytes: number;
}

/** A bad flag or missing setting; the message names the flag and quotes the value. */
export class CliUsageError extends Error {
  override readonly name = "CliUsageError";
}

/** The usage text printed by `--help` and after a usage error. */
export const USAGE = `Usage: ratewall-shim [--port 8079] [--host 127.0.0.1] [--redis-url redis://127.0.0.1:6379] [--cluster] --token <secret> [--max-body-bytes ${MAX_REQUEST_BYTES}]
  --token falls back to UPSTASH_REDIS_REST_TOKEN, --redis-url to REDIS_URL.
  --cluster: the Redis is a Redis Cluster and --redis-url any one of its nodes.
  --version prints ratewall's version.
  In a clone of the repository: npm run shim -- [flags].`;

/**
 * Parses the CLI flags, with the environment as fallback; `undefined` means `--help` was asked.
 *
 * @example
 * parseCliOptions(["--port", "8079", "--token", "s"], {}); // → { port: 8079, host: "127.0.0.1", … }
 */
export function parseCliOptions(argv: string[], env: Record<string, string | undefined>): CliOptions | undefined {
  const { values } = usageErrors(CliUsageError, () =>
    parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: "string" },
        host: { type: "string" },
        "redis-url": { type: "string" },
        token: { type: "string" },
        cluster: { type: "boolean" },
        "max-body-bytes": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }),
  );
  if (values.help) return undefined;
  const token = values.token ?? env.UPSTASH_REDIS_REST_TOKEN ?? "";
  if (token.trim() === "") {
    throw new CliUsageError("no token: pass --token <secret> or set UPSTASH_REDIS_REST_TOKEN (the shim never runs without one)");
  }
  const redisUrl = checkRedisUrl("--redis-url", values["redis-url"] ?? env.REDIS_URL ?? "redis://127.0.0.1:6379");
  return {
    port: integer("--port", values.port ?? "8079", 0, 65535),
    host: values.host ?? "127.0.0.1",
    redisUrl,
    cluster: values.cluster ?? false,
    token,
    maxBodyBytes: integer("--max-body-bytes", values["max-body-bytes"] ?? String(MAX_REQUEST_BYTES), 1, Number.MAX_SAFE_INTEGER),
  };
}

/** True for hosts that only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * `url` when it is a `redis://` or `rediss://` URL; else a {@link CliUsageError} that names `name`
 * and quotes the URL with whatever may be a password masked: everything before its last `@`, even
 * in a URL too broken to parse, line breaks included (a CR from a password file), keeping what
 * precedes the first `//` so that the user sees what is wrong.
 *
 * @example
 * checkRedisUrl("--redis-url", "redis//admin:pw@db:6379"); // throws: --redis-url: invalid URL "redis//***@db:6379" …
 */
export function checkRedisUrl(name: string, url: string): string {
  if (/^rediss?:\/\/[^\s]+$/.test(url) && URL.canParse(url)) return url;
  const shown = url.replace(/^([^/@]*\/\/)?[\s\S]*@/, "$1***@");
  throw new CliUsageError(`${name}: invalid URL "${shown}" (expected redis://host:port or rediss://…)`);
}

/** `redis://user:secret@h:1` → `redis://user:***@h:1`, for logs. */
export function maskCredentials(url: string): string {
  return url.replace(/^(rediss?:\/\/[^:@/]*:)[^@/]*@/, "$1***@");
}

function integer(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new CliUsageError(`${flag}: invalid value "${text}" (expected an integer from ${min} to ${max})`);
  }
  return value;
}
