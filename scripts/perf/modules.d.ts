/**
 * The modules scripts/perf imports without types of their own: src/app.ts, typed without the
 * Workers' globals (the scripts' type-check does not load them), and `ws` (Miniflare's own).
 */
declare module "ratewall-app" {
  /** src/app.ts's `createApp`: the Worker's Hono app. */
  export function createApp(deps?: Record<string, unknown>): { fetch(request: Request, env: never, ctx: never): Response | Promise<Response> };
}

declare module "ws" {
  /** The part of `ws`'s client that the inspector connection uses. */
  export default class WebSocket {
    constructor(url: string);
    once(event: "open" | "error", listener: (value?: unknown) => void): this;
    on(event: "message", listener: (data: Buffer) => void): this;
    send(data: string): void;
    close(): void;
  }
}
