/**
 * @module The facts a report must state to be read later: the machine, the versions of
 * everything measured, and the commit.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { cpus, loadavg, release, totalmem, type } from "node:os";
import { promisify } from "node:util";
import { fromRoot, repoRoot } from "./paths.ts";

/** Where the run happened. */
export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  os: string;
  node: string;
  /** 1-minute load average when the run started: above the CPU count, others were busy too. */
  loadAverage: number;
}

/** Name → version of every component the bench measures or uses. */
export type Versions = Record<string, string>;

const run = promisify(execFile);

const packages = ["wrangler", "miniflare", "hono", "@upstash/redis", "@upstash/ratelimit", "autocannon", "ioredis", "vega", "vega-lite"];

/** Describes this machine. */
export function describeMachine(): Machine {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model.trim() ?? "unknown",
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${type()} ${release()}`,
    node: process.version,
    loadAverage: Math.round(loadavg()[0]! * 10) / 10,
  };
}

/**
 * Reads installed versions from node_modules, plus redis-server's, workerd's and the commit.
 *
 * @example
 * const versions = await collectVersions(); // { wrangler: "4.86.0", …, ratewall: "40ddf12" }
 */
export async function collectVersions(): Promise<Versions> {
  const versions: Versions = {};
  for (const name of packages) versions[name] = await packageVersion(name);
  versions.workerd = await packageVersion("workerd");
  versions["redis-server"] = await run("redis-server", ["--version"])
    .then(({ stdout }) => /v=(\S+)/.exec(stdout)?.[1] ?? "unknown")
    .catch(() => "unknown");
  versions.ratewall = await run("git", ["-C", repoRoot, "rev-parse", "--short", "HEAD"])
    .then(({ stdout }) => stdout.trim())
    .catch(() => "unknown");
  return versions;
}

async function packageVersion(name: string): Promise<string> {
  const text = await readFile(fromRoot(`node_modules/${name}/package.json`), "utf8").catch(() => "");
  return text ? (JSON.parse(text) as { version: string }).version : "not installed";
}
