import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, T0, type Harness } from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

// Two Workers share one Redis; `now` is each one's clock: A runs 500 ms ahead of real time, B 500 ms behind.
describe("Workers whose clocks disagree, as README's Algorithms section says", () => {
  it("Should refuse again a client that honoured a fixed window's Retry-After from a lagging Worker, once one running ahead filled the next window", async () => {
    const limiter = h.limiter([{ name: "default", algorithm: "fixed-window", limit: 2, windowMs: 60_000 }]);
    const edge0 = Math.ceil(T0 / 60_000) * 60_000; // a window's start
    const via = (skew: number, real: number) => limiter.limit({ client: "c", scope: "", now: edge0 + real + skew });
    const A = 500;
    const B = -500;
    expect([(await via(B, 59_000)).allowed, (await via(B, 59_000)).allowed]).toEqual([true, true]); // window 0, B's clock
    expect([(await via(A, 59_600)).allowed, (await via(A, 59_600)).allowed]).toEqual([true, true]); // window 1, A's clock
    const refused = await via(B, 59_700);
    expect(refused).toMatchObject({ allowed: false, retryAfter: 1 });
    const obeying = await via(B, 59_700 + 1_000); // the client waits the Retry-After it was given
    expect(obeying).toMatchObject({ allowed: false, retryAfter: 60 });
  });

  it("Should admit twice a sliding log's limit in one real window when one Worker lags by 1 s", async () => {
    const limiter = h.limiter([{ name: "default", algorithm: "sliding-log", limit: 5, windowMs: 2_000 }]);
    let admitted = 0;
    for (let i = 0; i < 5; i++) if ((await limiter.limit({ client: "c", scope: "", now: T0 - 1_000 })).allowed) admitted++; // real 0, lagging Worker
    for (let i = 0; i < 5; i++) if ((await limiter.limit({ client: "c", scope: "", now: T0 + 1_001 })).allowed) admitted++; // real 1,001 ms, exact Worker
    expect(admitted).toBe(10); // exact in one clock; in two, 1 s apart, twice the limit in one real window
  });
});
