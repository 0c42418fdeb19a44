/**
 * @module Starts a throwaway Redis Cluster for the tests: `masters` × `redis-server --cluster-enabled
 * yes` (each through {@link startRedisServer}: a temporary directory for nodes.conf, no
 * persistence, loopback only), joined by `redis-cli --cluster create`, no replicas.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { portIsFree, startRedisServer, type RedisServer } from "./redis-server.ts";

/** A running cluster started by {@link startRedisCluster}. */
export interface RedisCluster {
  /** One node's URL, enough for a cluster client to find the rest. */
  seedUrl: string;
  /** Every master, in port order. */
  nodes: RedisServer[];
  /** Stops every node and removes their directories. Safe to call twice. */
  stop(): Promise<void>;
}

/** Cluster nodes also listen on port + 10000 (the cluster bus), so ports stay below 55535. */
const BUS_OFFSET = 10_000;

/**
 * Starts a cluster of `masters` nodes (at least 3, Redis's minimum) and resolves once every node
 * reports `cluster_state:ok`. Whatever it started is stopped again if it fails half-way.
 *
 * @example
 * const cluster = await startRedisCluster({ masters: 3 });
 * try { use(cluster.seedUrl); } finally { await cluster.stop(); }
 */
export async function startRedisCluster(options: { masters?: number } = {}): Promise<RedisCluster> {
  const { masters = 3 } = options;
  const nodes: RedisServer[] = [];
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= Promise.all(nodes.map((node) => node.stop())).then(() => {}));
  try {
    for (let i = 0; i < masters; i++) {
      nodes.push(
        await startRedisServer({
          port: clusterPort,
          args: ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000"],
        }),
      );
    }
    nodes.sort((a, b) => a.port - b.port);
    await redisCli(["--cluster", "create", ...nodes.map((node) => `127.0.0.1:${node.port}`), "--cluster-replicas", "0", "--cluster-yes"]);
    await Promise.all(nodes.map((node) => untilClusterOk(node.url)));
  } catch (error) {
    await stop();
    throw error;
  }
  return { seedUrl: nodes[0]!.url, nodes, stop };
}

/** A port in 20000–45000 that is free, and whose bus port (+10000) is free too. */
async function clusterPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 25_000);
    if ((await portIsFree(port)) && (await portIsFree(port + BUS_OFFSET))) return port;
  }
}

async function redisCli(args: string[]): Promise<void> {
  try {
    await promisify(execFile)("redis-cli", args, { timeout: 30_000 });
  } catch (error) {
    const { code, stdout = "", stderr = "" } = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
    if (code === "ENOENT") throw new Error("redis-cli was not found on PATH: it comes with redis-server (Debian: redis-tools)");
    throw new Error(`redis-cli ${args.join(" ")} failed: ${`${stdout}${stderr}`.trim()}`);
  }
}

/** Polls CLUSTER INFO until the node has every slot assigned and sees the others (or 20 s pass). */
async function untilClusterOk(url: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1 });
  try {
    for (let attempt = 0; ; attempt++) {
      const info = String(await redis.call("CLUSTER", "INFO"));
      if (info.includes("cluster_state:ok")) return;
      if (attempt >= 200) throw new Error(`${url} is not part of a healthy cluster: ${info.split("\r\n")[0]}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    redis.disconnect();
  }
}
