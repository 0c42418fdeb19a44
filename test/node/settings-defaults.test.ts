import { readFile } from "node:fs/promises";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { DEFAULTS } from "../../src/config/defaults.ts";
import { VARIABLES } from "../../src/settings.ts";

const root = new URL("../../", import.meta.url);
const read = (file: string) => readFile(new URL(file, root), "utf8");

/** README.md's configuration table: variable → its "default" cell. */
async function readmeDefaults(): Promise<Map<string, string>> {
  const rows = (await read("README.md")).split("\n").filter((line) => /^\| `[A-Z0-9_]+` \|/.test(line));
  return new Map(
    rows.map((line) => {
      const cells = line.split(" | ");
      return [cells[0]!.slice(3, -1), cells[2]!];
    }),
  );
}

describe("one table of defaults", () => {
  it("Should document every variable in README.md's configuration table, with the default the code uses", async () => {
    const documented = await readmeDefaults();
    expect([...documented.keys()].sort()).toEqual([...VARIABLES].sort());
    for (const variable of VARIABLES) {
      const expected = variable in DEFAULTS ? `\`${DEFAULTS[variable as keyof typeof DEFAULTS]}\`` : expect.stringMatching(/^(required|unset)/);
      expect({ variable, default: documented.get(variable) }).toEqual({ variable, default: expected });
    }
  });

  it("Should write every default into wrangler.toml's [vars] as it is, so the shipped file shows each knob and changes nothing", async () => {
    const vars = (parse(await read("wrangler.toml")) as { vars: Record<string, unknown> }).vars;
    for (const [variable, value] of Object.entries(DEFAULTS)) expect({ variable, value: vars[variable] }).toEqual({ variable, value });
  });
});
