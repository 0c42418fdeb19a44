/**
 * @module The admin API token `npm start` gives the local Worker: the user's `ADMIN_TOKEN`,
 * checked before anything starts (the Worker would otherwise start without its admin API), else a
 * fresh random one, so that `npm run admin` works on the local stack out of the box.
 */
import { randomBytes } from "node:crypto";

/** The Worker enables its admin API only for tokens at least this long (the lead's contract). */
const MIN_ADMIN_TOKEN_LENGTH = 32;

/**
 * `ADMIN_TOKEN` from `env` when set (non-empty), else 32 random bytes in hex; `generated` says
 * which, so that only a token the user did not choose is printed.
 *
 * @example
 * localAdminToken({}); // → { token: "9f1c…" (64 hex digits), generated: true }
 * localAdminToken({ ADMIN_TOKEN: "short" }); // throws "ADMIN_TOKEN: must be at least 32 characters (got 5)"
 */
export function localAdminToken(env: Record<string, string | undefined>): { token: string; generated: boolean } {
  const token = env.ADMIN_TOKEN ?? "";
  if (token === "") return { token: randomBytes(32).toString("hex"), generated: true };
  if (token.length < MIN_ADMIN_TOKEN_LENGTH) throw new Error(`ADMIN_TOKEN: must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (got ${token.length})`);
  return { token, generated: false };
}
