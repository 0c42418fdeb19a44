/**
 * @module Loads ratewall's own modules (the shim, the limiter, the Redis runner) when they exist.
 * They are built in parallel with the bench, so each is imported by path at run time and checked
 * for the export the bench calls; a missing one turns the sections that need it into "skipped"
 * with the reason, instead of failing the whole run.
 */
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { Limiter, Rule, ScriptRunner } from "../../../src/limiter/types.ts";
import { fromRoot } from "./paths.ts";

/** Request counters kept by the shim. */
export interface RestStats {
  requests: number;
  bytesIn: number;
  bytesOut: number;
  reset(): void;
}

/** A running shim, as `startShim` resolves it. */
export interface ShimHandle {
  url: string;
  close(): Promise<void>;
  stats?: RestStats;
}

/** The project modules the bench drives; `undefined` fields have not landed yet. */
export interface ProjectModules {
  startShim?: (options: { redisUrl: string; token: string; port: number }) => Promise<ShimHandle>;
  createLimiter?: (rules: Rule[], options: { runner: ScriptRunner; prefix: string }) => Limiter;
  createRedisRunner?: (options: { url: string; token: string; timeoutMs?: number }) => ScriptRunner;
  /** Why each missing module is missing, by export name. */
  missing: Record<string, string>;
}

const wanted = [
  ["startShim", "scripts/upstash-shim/index.ts"],
  ["createLimiter", "src/limiter/index.ts"],
  ["createRedisRunner", "src/redis/client.ts"],
] as const;

/**
 * Imports whichever of the shim, the limiter and the runner exist.
 *
 * @example
 * const modules = await loadProjectModules();
 * if (!modules.startShim) console.log(modules.missing.startShim);
 */
export async function loadProjectModules(): Promise<ProjectModules> {
  const modules: ProjectModules = { missing: {} };
  for (const [name, path] of wanted) {
    if (!existsSync(fromRoot(path))) {
      modules.missing[name] = `${path} does not exist yet`;
      continue;
    }
    try {
      const loaded = (await import(pathToFileURL(fromRoot(path)).href)) as Record<string, unknown>;
      if (typeof loaded[name] === "function") Object.assign(modules, { [name]: loaded[name] });
      else modules.missing[name] = `${path} does not export ${name}()`;
    } catch (error) {
      modules.missing[name] = `${path} failed to load: ${(error as Error).message.split("\n")[0]}`;
    }
  }
  return modules;
}
