/**
 * @module PURE: reads the head of a plain HTTP/1.1 request (RFC 9112 §2–§5), the kind that
 * fast-http.ts serves itself. Anything else is `undefined`, and node:http takes the request.
 */

/** A plain request head: one every HTTP/1.1 client sends for a small keep-alive POST or GET. */
export interface PlainHead {
  method: "GET" | "POST" | "PUT";
  /** The origin-form request target, e.g. `/pipeline` or `/set/k/v?EX=10`. */
  target: string;
  /** Header values by lower-case name; every name appears once. */
  headers: Record<string, string>;
  /** The body's length (Content-Length; 0 without one). */
  bodyLength: number;
  /** `Connection: close`: answer, then close. */
  close: boolean;
}

// RFC 9112 §3: method SP request-target SP HTTP-version; only the origin form, visible ASCII.
const REQUEST_LINE = /^(GET|POST|PUT) (\/[!-~]*) HTTP\/1\.1$/;
// RFC 9110 §5.1, §5.5: a token, a colon, then the value: optional whitespace around characters
// other than controls. Read in three linear steps, never one pattern: a lazy value between two
// runs of whitespace backtracks over every split of a long run (seconds for 4 KB of spaces, from
// any client, before the token is checked).
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+:/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters a field value must not hold
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;
/** Headers that change how the body or the connection is read: node:http handles them. */
const HANDED_OVER = new Set(["transfer-encoding", "expect", "upgrade"]);

/**
 * Parses the head (without its final blank line) of a request that needs nothing but a
 * Content-Length body: `undefined` for another method or HTTP version, a repeated header, a
 * chunked or `Expect` body, an upgrade, a missing `Host`, or anything malformed (node:http then
 * answers it as it always has).
 *
 * @example
 * parsePlainHead("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 8");
 * // → { method: "POST", target: "/", headers: { host: "x", "content-length": "8" }, bodyLength: 8, close: false }
 */
export function parsePlainHead(head: string): PlainHead | undefined {
  const lines = head.split("\r\n");
  const request = REQUEST_LINE.exec(lines[0]!);
  if (!request) return undefined;
  const headers: Record<string, string> = Object.create(null);
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const field = FIELD_NAME.exec(line);
    if (!field || CONTROL.test(line)) return undefined;
    const name = field[0].slice(0, -1).toLowerCase();
    if (name in headers || HANDED_OVER.has(name)) return undefined;
    headers[name] = trimWhitespace(line, field[0].length);
  }
  const length = headers["content-length"];
  if (headers.host === undefined || (length !== undefined && !/^\d{1,15}$/.test(length))) return undefined;
  const connection = headers.connection?.toLowerCase() ?? "";
  if (connection.includes("upgrade")) return undefined;
  return {
    method: request[1] as PlainHead["method"],
    target: request[2]!,
    headers,
    bodyLength: length === undefined ? 0 : Number(length),
    close: /(^|,)\s*close\s*(,|$)/.test(connection),
  };
}

/** `line` from `start`, without the spaces and tabs at either end (RFC 9110 §5.5: OWS is not the value's). */
function trimWhitespace(line: string, start: number): string {
  let from = start;
  let to = line.length;
  while (from < to && (line[from] === " " || line[from] === "\t")) from++;
  while (to > from && (line[to - 1] === " " || line[to - 1] === "\t")) to--;
  return line.slice(from, to);
}
