/**
 * The Worker under test, as cpu-harness.ts imports it: the CPU section copies the Worker's bundle
 * beside the harness's as `target.js`.
 */
declare const worker: { fetch(request: Request, env: unknown, ctx: unknown): Response | Promise<Response> };
export default worker;
