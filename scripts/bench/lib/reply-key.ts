/**
 * @module Which recorded REST reply answers a request: the path and the command names, with a
 * script call named by its SHA-1 whether it came as EVAL or EVALSHA (the same script gets the
 * same reply). Shared by the recorder in Node and the CPU harness Worker in workerd, so the
 * two can never disagree.
 */

/**
 * The key of one REST request: `/ EVALSHA <sha>` for a script call, `/pipeline GET,EVALSHA <sha>`
 * for a pipeline, `/ PING` for anything else.
 *
 * @example
 * await replyKey("/", '["EVAL","return 1",0]') // → "/ EVALSHA e0e1f9fabfc9d4800c877a703b823ac0578ff8db"
 */
export async function replyKey(path: string, body: string): Promise<string> {
  const parsed = JSON.parse(body) as unknown[];
  const commands = (Array.isArray(parsed[0]) ? parsed : [parsed]) as unknown[][];
  const names: string[] = [];
  for (const command of commands) {
    const name = String(command[0]).toUpperCase();
    if (name === "EVALSHA") names.push(`EVALSHA ${String(command[1])}`);
    else if (name === "EVAL") names.push(`EVALSHA ${await sha1(String(command[1]))}`);
    else names.push(name);
  }
  return `${path} ${names.join(",")}`;
}

async function sha1(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** A recorded answer of the REST endpoint. */
export interface CannedReply {
  status: number;
  contentType: string;
  body: string;
}
