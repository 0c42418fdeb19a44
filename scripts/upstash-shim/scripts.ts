/**
 * @module The `#!lua flags=allow-key-locking` shebang (docs/shim.md §9.4). Stock Redis rejects
 * this Upstash-only flag, so the shim strips it before Redis sees a script, and remembers
 * sha1(original text) → rewritten text, so that EVALSHA, SCRIPT EXISTS and SCRIPT LOAD answer for
 * the digest the client computed over the original text, as Upstash does.
 */
import { createHash } from "node:crypto";
import type { Arg, Command, Reply } from "./protocol.ts";

/** How a command is sent to Redis, and how its reply is adjusted afterwards. */
export interface ScriptPlan {
  command: Command;
  /** Applied to a successful reply (SCRIPT LOAD's digest, SCRIPT FLUSH clearing the map). */
  after?: (reply: Reply) => Reply;
  /** Applied to an error reply: a script's error names the digest of the text Redis ran. */
  failed?: (error: Error) => Error;
}

const UPSTASH_ONLY_FLAG = "allow-key-locking";
/** Enough for every script a deployment uses; the oldest entry goes first when full. */
const MAX_SCRIPTS = 10_000;

/** The lowercase hex SHA1 of a script's UTF-8 bytes, as Redis computes it. */
export function sha1(text: Arg): string {
  return createHash("sha1").update(text).digest("hex");
}

/**
 * Returns the script without the Upstash-only flag, or `undefined` when there is nothing to change.
 * The shebang stays, with its other flags: a bare `#!lua` still tells Redis 7 the script may write
 * (refused by EVAL_RO, or when Redis is out of memory) where a script without one is let through,
 * and Redis still judges the engine and the line's end itself. Redis < 7 knows no shebang at all
 * (`shebangs` false): there the line is dropped but its newline kept, so that line numbers in
 * Redis's error messages still match the original.
 *
 * @example
 * stripUpstashFlags("#!lua flags=allow-key-locking,no-writes\nreturn 1"); // → "#!lua flags=no-writes\nreturn 1"
 * stripUpstashFlags("#!lua flags=allow-key-locking\nreturn 1");           // → "#!lua\nreturn 1"
 */
export function stripUpstashFlags(script: string, shebangs = true): string | undefined {
  if (!script.startsWith("#!")) return undefined;
  const end = script.indexOf("\n");
  const line = end === -1 ? script : script.slice(0, end);
  const rest = end === -1 ? "" : script.slice(end);
  const [engine = "", ...options] = line.split(/\s+/).filter(Boolean);
  let changed = false;
  const kept = options.flatMap((option) => {
    if (!option.startsWith("flags=")) return [option];
    const flags = option.slice("flags=".length).split(",");
    const others = flags.filter((flag) => flag !== UPSTASH_ONLY_FLAG);
    if (others.length === flags.length) return [option];
    changed = true;
    return others.length > 0 ? [`flags=${others.join(",")}`] : [];
  });
  if (!changed) return undefined;
  return shebangs ? `${[engine, ...kept].join(" ")}${rest}` : rest;
}

/** Puts the client's digest back where Redis named the rewritten script's, as Upstash names the client's. */
function naming(ran: string, sent: string): (error: Error) => Error {
  return (error) => (error.message.includes(ran) ? new Error(error.message.replaceAll(ran, sent)) : error);
}

/**
 * The per-shim map from the client's digest to the rewritten script, and the rewriting of the
 * script commands that depend on it (§9.4). One instance per shim; a restart forgets it, which the
 * clients handle (NOSCRIPT → EVAL).
 *
 * @example
 * const scripts = new ScriptRegistry();
 * const plan = scripts.plan({ name: "EVAL", args: ["#!lua flags=allow-key-locking\nreturn 1", "0"] });
 * // plan.command.args[0] === "#!lua\nreturn 1"; a later EVALSHA of sha1(original) is sent as sha1("#!lua\nreturn 1")
 */
export class ScriptRegistry {
  readonly #rewrittenSha = new Map<string, string>();

  /** @param shebangs whether Redis understands shebang flags (7.0 and later); asked per rewrite. */
  constructor(private readonly shebangs: () => boolean = () => true) {}

  /** Rewrites EVAL*, EVALSHA*, SCRIPT LOAD/EXISTS/FLUSH; any other command is returned unchanged. */
  plan(command: Command): ScriptPlan {
    const { name, args } = command;
    if ((name === "EVAL" || name === "EVAL_RO") && args.length > 0) {
      const script = this.#rewrite(args[0]!);
      const plan = { command: { name, args: [script, ...args.slice(1)] } };
      return script === args[0] ? plan : { ...plan, failed: naming(sha1(script), sha1(args[0]!)) };
    }
    if ((name === "EVALSHA" || name === "EVALSHA_RO") && args.length > 0) {
      const sha = this.#translate(args[0]!);
      const plan = { command: { name, args: [sha, ...args.slice(1)] } };
      return sha === args[0] ? plan : { ...plan, failed: naming(String(sha), String(args[0])) };
    }
    if (name !== "SCRIPT" || args.length === 0) return { command };
    const sub = String(args[0]).toUpperCase();
    if (sub === "LOAD" && args.length === 2) {
      const original = sha1(args[1]!);
      // Upstash returns the digest of the text it was given (§9.4 step 3).
      return { command: { name, args: ["LOAD", this.#rewrite(args[1]!)] }, after: () => Buffer.from(original) };
    }
    if (sub === "EXISTS") return { command: { name, args: ["EXISTS", ...args.slice(1).map((sha) => this.#translate(sha))] } };
    if (sub === "FLUSH") {
      return {
        command,
        after: (reply) => {
          this.#rewrittenSha.clear();
          return reply;
        },
      };
    }
    return { command };
  }

  #rewrite(script: Arg): Arg {
    const rewritten = stripUpstashFlags(String(script), this.shebangs());
    if (rewritten === undefined) return script;
    const original = sha1(script);
    if (!this.#rewrittenSha.has(original) && this.#rewrittenSha.size >= MAX_SCRIPTS) {
      this.#rewrittenSha.delete(this.#rewrittenSha.keys().next().value!);
    }
    this.#rewrittenSha.set(original, sha1(rewritten));
    return rewritten;
  }

  #translate(sha: Arg): Arg {
    return this.#rewrittenSha.get(String(sha).toLowerCase()) ?? sha;
  }
}
