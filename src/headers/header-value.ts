/**
 * @module A secret as an HTTP header carries it (the Upstash token, the admin token): its ends
 * trimmed as fetch trims a header's value, and the first character it cannot carry named by code
 * point and position, never by value; and what a token (a field name) is.
 */

/** An RFC 9110 §5.6.2 token: a field name (§5.1), an auth-scheme (§11.1), a cookie name (RFC 6265 §4.1.1). */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The value without the spaces, tabs and line breaks at its ends, which fetch drops from a
 * header's value (RFC 9110 §5.5): a token pasted with its line break is the token.
 *
 * @example
 * trimHeaderValue("t0ken\n"); // "t0ken"
 */
export function trimHeaderValue(value: string): string {
  return value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
}

/** Whether a header value may hold the code point: a tab, or Latin-1 other than control characters (RFC 9110 §5.5). */
export function inHeaderValue(code: number): boolean {
  return code === 0x09 || (code >= 0x20 && code !== 0x7f && code <= 0xff);
}

/**
 * The first character of `value` that `allowed` refuses, as a message names it: its code point
 * and its position (in characters, from 1). `undefined` when there is none.
 *
 * @example
 * firstRefused("ab\ncd", inHeaderValue); // { code: 10, where: "U+000A at character 3" }
 */
export function firstRefused(value: string, allowed: (code: number) => boolean): { code: number; where: string } | undefined {
  let position = 0;
  for (const char of value) {
    position++;
    const code = char.codePointAt(0)!;
    if (!allowed(code)) return { code, where: `U+${code.toString(16).toUpperCase().padStart(4, "0")} at character ${position}` };
  }
  return undefined;
}
