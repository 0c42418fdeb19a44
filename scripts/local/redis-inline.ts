/**
 * @module One inline command to a Redis, without a client library and without authenticating:
 * how the tests see what anyone on the machine would get from a Redis that the stack started.
 */
import { connect } from "node:net";

/**
 * Redis's first reply line to `command`, sent as an inline command on a new connection.
 *
 * @example
 * await inlineReply(port, "PING"); // "-NOAUTH Authentication required." when a password is set
 */
export function inlineReply(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(`${command}\r\n`));
    socket.once("data", (chunk) => {
      socket.destroy();
      resolve(chunk.toString().split("\r\n")[0]!);
    });
    socket.once("error", reject);
  });
}
