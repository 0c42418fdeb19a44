import { describe, expect, it } from "vitest";
import { MAX_KEY_LENGTH, sha256Hex } from "../keys/identify.ts";
import { readClientParam } from "./client-param.ts";

const read = (query: string) => readClientParam(new URLSearchParams(query), 64);
const EXACTLY_ONE = 'Give exactly one of "client" (an IP address, or a client id as the logs print it) and "key" (a raw key value), once.';

describe("readClientParam", () => {
  it("Should refuse both a client and a key, or neither, rather than pick one the operator did not mean", async () => {
    expect(await read("client=192.0.2.1&key=abc")).toEqual({ error: EXACTLY_ONE });
    expect(await read("")).toEqual({ error: EXACTLY_ONE });
  });

  it("Should take a key of 1 to 8192 characters, as requests carry them, and refuse an empty or longer one", async () => {
    const longest = "k".repeat(MAX_KEY_LENGTH);
    expect(await read(`key=${longest}`)).toEqual({ client: `key:${await sha256Hex(longest)}` });
    expect(await read("key=")).toEqual({ error: "Invalid key: expected 1 to 8192 characters, got 0." });
    expect(await read(`key=${longest}k`)).toEqual({ error: "Invalid key: expected 1 to 8192 characters, got 8193." });
  });

  it("Should refuse a client or a key given twice, rather than act on the first and leave the other unseen", async () => {
    expect(await read("client=192.0.2.1&client=192.0.2.2")).toEqual({ error: EXACTLY_ONE });
    expect(await read("key=abc&key=abc")).toEqual({ error: EXACTLY_ONE });
  });

  it("Should take a country code in either case, as DENY and ALLOW do, and name it in capitals as the logs print it", async () => {
    expect(await read("client=country:de")).toEqual({ client: "country:DE" });
    expect(await read("client=country:T1")).toEqual({ client: "country:T1" });
  });

  it("Should take unknown, the bucket of requests without an address, as the logs print it", async () => {
    expect(await read("client=unknown")).toEqual({ client: "unknown" });
  });
});
