/**
 * @module A process's memory as Linux reports it: the resident set size from /proc, for the soak
 * and the hardening tests (a leak shows as RSS that keeps growing).
 */
import { readFileSync } from "node:fs";

/**
 * The resident set size of process `pid`, in KiB (`VmRSS` in /proc/<pid>/status).
 *
 * @example
 * rssKiB(shim.pid) // 61234
 */
export function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}
