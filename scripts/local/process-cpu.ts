/**
 * @module CPU time of another process, from Linux's /proc: the sum over its threads of
 * `/proc/<pid>/task/<tid>/schedstat`'s first field (nanoseconds on a CPU, finer than the clock
 * ticks of `/proc/<pid>/stat`). Used on workerd, so that the load generator in this process is
 * not counted.
 */
import { readdir, readFile } from "node:fs/promises";

/**
 * Nanoseconds `pid` has spent on a CPU, all its live threads together.
 *
 * @example
 * const before = await cpuNs(pid); … ; const used = (await cpuNs(pid)) - before;
 */
export async function cpuNs(pid: number): Promise<number> {
  const tasks = await readdir(`/proc/${pid}/task`);
  let total = 0;
  for (const tid of tasks) {
    // A thread may end between readdir and readFile; it then counts for nothing in either read.
    const text = await readFile(`/proc/${pid}/task/${tid}/schedstat`, "utf8").catch(() => "0");
    total += Number(text.split(" ")[0]);
  }
  return total;
}

/**
 * The pids of this process's children named `name` (e.g. the workerd processes Miniflare
 * spawned).
 *
 * @example
 * const before = await childPids("workerd");
 */
export async function childPids(name: string): Promise<Set<number>> {
  const pids = new Set<number>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    // "pid (comm) state ppid …": comm may hold spaces, so split after its closing parenthesis.
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const ppid = Number(stat.slice(close + 2).split(" ")[1]);
    if (comm === name && ppid === process.pid) pids.add(Number(entry));
  }
  return pids;
}
