/**
 * @module A V8 CPU profile of a process with an inspector (workerd started with Miniflare's
 * `inspectorPort`) over the Chrome DevTools Protocol, for `npm run bench -- --cpu-profiles DIR`.
 * The `.cpuprofile` files open in Chrome DevTools (Performance) or VS Code.
 */
import WebSocket from "ws";

/**
 * Records a CPU profile of the Worker (not Miniflare's helpers) on `inspectorPort` while `work` runs.
 *
 * @example
 * const profile = await profileWhile(9230, () => runRound());
 * await writeFile("ratewall.cpuprofile", JSON.stringify(profile));
 */
export async function profileWhile(inspectorPort: number, work: () => Promise<unknown>): Promise<unknown> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as Array<{ webSocketDebuggerUrl: string; title?: string }>;
  // Miniflare names the Worker under test "core:user:<name>"; its own helpers have other names.
  const target = targets.find((t) => t.title?.includes("worker core:user:"));
  if (!target) throw new Error(`no Worker among the inspector's targets on port ${inspectorPort}: ${targets.map((t) => t.title).join(", ")}`);
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  let id = 0;
  const pending = new Map<number, (result: unknown) => void>();
  socket.on("message", (data: Buffer) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  });
  const send = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      pending.set(++id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    await send("Profiler.enable");
    await send("Profiler.setSamplingInterval", { interval: 50 });
    await send("Profiler.start");
    await work();
    return ((await send("Profiler.stop")) as { profile: unknown }).profile;
  } finally {
    socket.close();
  }
}
