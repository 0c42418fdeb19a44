import { describe, expect, it } from "vitest";
import type { Reply } from "./protocol.ts";
import { encodeCommand, RedisReplyError, ReplyDecoder } from "./resp.ts";

/** Feeds `wire` to a decoder in pieces of `size` bytes; returns every reply it produced. */
function decode(wire: string | Buffer, size = Number.POSITIVE_INFINITY): Reply[] {
  const bytes = Buffer.from(wire);
  const replies: Reply[] = [];
  const decoder = new ReplyDecoder((reply) => replies.push(reply));
  for (let at = 0; at < bytes.length; at += size) decoder.push(bytes.subarray(at, Math.min(at + size, bytes.length)));
  return replies;
}

describe("encodeCommand", () => {
  it("Should write a command as an array of bulk strings, counting bytes, not characters", () => {
    const out = [""];
    encodeCommand({ name: "SET", args: ["k", "é"] }, out);
    expect(out).toEqual(["*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\né\r\n"]);
  });

  it("Should keep a binary argument as its own chunk, and the next command's text after it", () => {
    const out = [""];
    encodeCommand({ name: "SET", args: ["k", Buffer.from([0xff, 0x00])] }, out);
    encodeCommand({ name: "GET", args: ["k"] }, out);
    expect(Buffer.concat(out.map((chunk) => Buffer.from(chunk as string | Buffer)))).toEqual(
      Buffer.concat([Buffer.from("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\n"), Buffer.from([0xff, 0x00]), Buffer.from("\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n")]),
    );
  });
});

describe("ReplyDecoder", () => {
  const wire =
    "+OK\r\n:-42\r\n:9007199254740993\r\n$5\r\nhe\r\no\r\n$-1\r\n*-1\r\n*0\r\n-ERR boom\r\n*3\r\n:1\r\n*2\r\n$1\r\na\r\n-WRONGTYPE inner\r\n$0\r\n\r\n";

  it("Should decode every RESP2 type: strings as bytes, integers as exact digits, nil, arrays and errors", () => {
    const replies = decode(wire);
    expect(replies.slice(0, 7)).toEqual([Buffer.from("OK"), "-42", "9007199254740993", Buffer.from("he\r\no"), null, null, []]);
    expect(replies[7]).toEqual(new RedisReplyError("ERR boom"));
    expect(replies[8]).toEqual(["1", [Buffer.from("a"), new RedisReplyError("WRONGTYPE inner")], Buffer.alloc(0)]);
    expect(replies).toHaveLength(9);
  });

  it.each([1, 2, 3, 7])("Should decode the same replies when the socket delivers %i bytes at a time", (size) => {
    expect(decode(wire, size)).toEqual(decode(wire));
  });

  it("Should decode a long bulk string split over many chunks", () => {
    const value = "x".repeat(1_000_000);
    const [bulk, next] = decode(`$${value.length}\r\n${value}\r\n:1\r\n`, 65_536);
    expect((bulk as Buffer).equals(Buffer.from(value))).toBe(true);
    expect(next).toBe("1");
  });

  it("Should refuse bytes that are not RESP2", () => {
    expect(() => decode("HTTP/1.1 400 Bad Request\r\n")).toThrow(/not RESP2/);
    expect(() => decode("$x\r\n")).toThrow(/not RESP2/);
  });
});
