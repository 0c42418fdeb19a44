import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { limiterScripts } from "../../../src/limiter/scripts.ts";
import { startHarness, TOKEN, type Harness } from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe("Pinned SHA1s", () => {
  for (const [name, script] of Object.entries(limiterScripts)) {
    it(`Should pin the SHA1 that SCRIPT LOAD returns for the ${name} script`, async () => {
      const response = await fetch(h.shim.url, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify(["SCRIPT", "LOAD", script.source]),
      });
      expect(await response.json()).toEqual({ result: script.sha1 });
      expect(createHash("sha1").update(script.source).digest("hex")).toBe(script.sha1);
      expect(script.source.startsWith("#!lua flags=allow-key-locking\n")).toBe(true);
    });
  }
});
