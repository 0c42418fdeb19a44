/**
 * @module Child-process entry: runs the Upstash REST shim alone in its own process, as it would
 * run in front of a real Redis, so that a client measuring it does not share its event loop.
 * Reads `BENCH_REDIS_URL` and `BENCH_TOKEN`, prints `{"url":…}` on one line once listening,
 * stops on SIGTERM or when stdin closes (the parent died).
 */
import { startShim } from "../../upstash-shim/index.ts";

const shim = await startShim({ redisUrl: process.env.BENCH_REDIS_URL!, token: process.env.BENCH_TOKEN!, port: 0 });
process.stdout.write(`${JSON.stringify({ url: shim.url })}\n`);
const stop = () => void shim.close().finally(() => process.exit(0));
process.once("SIGTERM", stop);
process.stdin.on("end", stop).resume();
