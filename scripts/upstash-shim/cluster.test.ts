import { describe, expect, it } from "vitest";
import { CROSSSLOT, keySlot, transactionSlot } from "./cluster.ts";

describe("the cluster slot of a key", () => {
  it("Should be CRC16 of the key modulo 16384, as the Redis Cluster specification's examples give", () => {
    expect([keySlot("foo"), keySlot("123456789"), keySlot(Buffer.from("foo"))]).toEqual([12182, 12739, 12182]);
  });

  it("Should be the slot of the first non-empty {hash tag}, so that one client's keys share a slot", () => {
    expect(keySlot("rate:fixed:{203.0.113.7}:api")).toBe(keySlot("203.0.113.7"));
    expect(keySlot("{}foo")).not.toBe(keySlot("foo"));
    expect(keySlot("a{b}{c}")).toBe(keySlot("b"));
  });

  it("Should make a transaction CROSSSLOT only when its keys span slots, EVAL's declared keys included", () => {
    expect(
      transactionSlot([
        { name: "SET", args: ["{u}a", "1"] },
        { name: "EVAL", args: ["return 1", "1", "{u}b"] },
      ]),
    ).toBe(keySlot("u"));
    expect(
      transactionSlot([
        { name: "SET", args: ["{u}a", "1"] },
        { name: "MGET", args: ["{u}a", "{v}a"] },
      ]),
    ).toBe(CROSSSLOT);
    expect(transactionSlot([{ name: "PING", args: [] }])).toBeUndefined();
  });
});
