/**
 * @module CPU time of another process, from Linux's /proc: the sum over its threads of
 * `/proc/<pid>/task/<tid>/schedstat`'s first field (nanoseconds on a CPU, finer than the clock
 * ticks of `/proc/<pid>/stat`). Used on workerd, so that the load generator in this process is
 * not counted, and on this process's main thread alone.
 */
import { readdir, readFile, readlink } from "node:fs/promises";

/**
 * Nanoseconds `pid` has spent on a CPU, all its live threads together.
 *
 * @example
 * const before = await cpuNs(pid); … ; const used = (await cpuNs(pid)) - before;
 */
export async function cpuNs(pid: number): Promise<number> {
  const tasks = await readdir(`/proc/${pid}/task`);
  let total = 0;
  // A thread may end between readdir and readFile; it then counts for nothing in either read.
  for (const tid of tasks) total += await threadCpuNs(pid, Number(tid)).catch(() => 0);
  return total;
}

/**
 * Nanoseconds one thread has spent on a CPU; this process's main thread is `threadCpuNs(process.pid, process.pid)`.
 *
 * @example
 * const shimAndOrigin = await threadCpuNs(process.pid, process.pid);
 */
export async function threadCpuNs(pid: number, tid: number): Promise<number> {
  return Number((await readFile(`/proc/${pid}/task/${tid}/schedstat`, "utf8")).split(" ")[0]);
}

/**
 * Which of this process's children named `name` listens on TCP `port` of loopback: the one that
 * holds the listening socket's inode (/proc/net/tcp, then /proc/<pid>/fd). `undefined` if none.
 *
 * @example
 * const workerd = await listenerPid(Number(new URL(worker.url).port), "workerd");
 */
export async function listenerPid(port: number, name: string): Promise<number | undefined> {
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const lines = (await readFile(table, "utf8").catch(() => "")).split("\n").slice(1);
    for (const line of lines) {
      // "sl local_address rem_address st … inode": the port is the hex after the colon; 0A is LISTEN.
      const fields = line.trim().split(/\s+/);
      if (fields[3] === "0A" && Number.parseInt(fields[1]?.split(":")[1] ?? "", 16) === port) inodes.add(`socket:[${fields[9]}]`);
    }
  }
  for (const pid of await childPids(name)) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
    for (const fd of fds) if (inodes.has(await readlink(`/proc/${pid}/fd/${fd}`).catch(() => ""))) return pid;
  }
  return undefined;
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
