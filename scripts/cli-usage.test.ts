import { parseArgs } from "node:util";
import { describe, expect, it } from "vitest";
import { usageErrors } from "./cli-usage.ts";

class ToolUsageError extends Error {}

describe("usageErrors", () => {
  it("Should turn parseArgs's refusal of an unknown flag or a missing value into the CLI's own usage error, naming the flag", () => {
    const parse = (args: string[]) => () =>
      usageErrors(ToolUsageError, () => parseArgs({ args, allowPositionals: true, options: { port: { type: "string" } } }));
    expect(parse(["--prot", "1"])).toThrowError(ToolUsageError);
    // A misspelt flag is told so, without Node's advice for a positional that starts with "-"…
    expect(parse(["--prot", "1"])).toThrowError(new ToolUsageError("Unknown option '--prot'"));
    // …which stays for a value such as an API key "-abc", the way to pass it.
    expect(parse(["-abc"])).toThrowError(/Unknown option '-a'\. To specify a positional argument starting with a '-'/);
    expect(parse(["--port"])).toThrowError(ToolUsageError);
    expect(parse(["--port"])).toThrowError(/'--port <value>' argument missing/);
    expect(usageErrors(ToolUsageError, () => parseArgs({ args: ["--port", "8079"], options: { port: { type: "string" } } })).values).toEqual({ port: "8079" });
  });
});
