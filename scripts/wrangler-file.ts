/**
 * @module Which wrangler configuration file a directory deploys with, and its text parsed: the
 * order wrangler looks in (`wrangler.json`, then `wrangler.jsonc`, then `wrangler.toml`) and the
 * two formats, TOML and JSON with comments and trailing commas.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";

/** The file names wrangler looks for, in its order (wrangler's findWranglerConfig). */
export const WRANGLER_FILES = ["wrangler.json", "wrangler.jsonc", "wrangler.toml"] as const;

/**
 * The configuration file wrangler would use from `dir`: each of {@link WRANGLER_FILES} in turn,
 * looked for in `dir` and then in each directory above it, as wrangler looks (so a
 * `wrangler.json` above beats a `wrangler.toml` here); else `dir`'s `wrangler.toml`, which then
 * cannot be read, and says so.
 *
 * @example
 * wranglerFile("/path/to/project"); // "/path/to/project/wrangler.toml"
 */
export function wranglerFile(dir: string): string {
  for (const name of WRANGLER_FILES) {
    for (let at = resolve(dir); ; at = dirname(at)) {
      if (existsSync(join(at, name))) return join(at, name);
      if (dirname(at) === at) break;
    }
  }
  return join(dir, "wrangler.toml");
}

/**
 * A configuration file's text as an object: JSON (comments and trailing commas allowed, as
 * wrangler reads `.json` and `.jsonc`) for a name ending in `.json` or `.jsonc`, TOML otherwise.
 *
 * @example
 * parseWranglerFile('{ "vars": { "RATE_LIMIT": "5/1m", }, // a comment\n}', "wrangler.jsonc");
 * // { vars: { RATE_LIMIT: "5/1m" } }
 */
export function parseWranglerFile(text: string, file: string): Record<string, unknown> {
  if (!/\.jsonc?$/i.test(file)) return parseToml(text) as Record<string, unknown>;
  // A byte order mark is no JSON, and wrangler drops it before parsing.
  const value: unknown = JSON.parse(withoutTrailingCommas(withoutComments(text.replace(/^\uFEFF/, ""))));
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new SyntaxError("expected a JSON object");
  return value as Record<string, unknown>;
}

/** The text with `//` and block comments blanked (line breaks kept, so errors name the right line), strings untouched. */
function withoutComments(text: string): string {
  return outsideStrings(text, (at) => {
    if (text.startsWith("//", at)) {
      const end = text.indexOf("\n", at);
      return ["", end < 0 ? text.length : end];
    }
    if (text.startsWith("/*", at)) {
      const close = text.indexOf("*/", at + 2);
      const end = close < 0 ? text.length : close + 2;
      return [text.slice(at, end).replace(/[^\n]/g, " "), end];
    }
    return [text[at]!, at + 1];
  });
}

/** The text without a comma that closes an object or array (`[1, 2,]`), strings untouched. */
function withoutTrailingCommas(text: string): string {
  return outsideStrings(text, (at) => [text[at] === "," && closes(text, at + 1) ? "" : text[at]!, at + 1]);
}

/** The text rewritten by `step` everywhere but inside strings; `step` gives what to write for `at` and where to go on. */
function outsideStrings(text: string, step: (at: number) => [string, number]): string {
  let out = "";
  for (let at = 0; at < text.length; ) {
    const [piece, next] = text[at] === '"' ? [text.slice(at, stringEnd(text, at)), stringEnd(text, at)] : step(at);
    out += piece;
    at = next;
  }
  return out;
}

const CLOSING = /\s*[}\]]/y;

/** Whether only space stands between `at` and a closing `}` or `]`. */
function closes(text: string, at: number): boolean {
  CLOSING.lastIndex = at;
  return CLOSING.test(text);
}

/** Where the string that opens at `start` ends (after its closing quote), escapes skipped. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
  return Math.min(i + 1, text.length);
}
