import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { fromRoot } from "./paths.ts";
import { replaceBlock } from "./readme-block.ts";

describe("the README's generated blocks", () => {
  it("Should replace only the text between a block's markers", () => {
    const text = "before\n<!-- bench:guide -->\nold figures\n<!-- /bench:guide -->\nafter\n";
    expect(replaceBlock(text, "guide", "new figures", "README.md")).toBe("before\n<!-- bench:guide -->\nnew figures\n<!-- /bench:guide -->\nafter\n");
  });

  it("Should refuse a file without the block, naming the file and the marker", () => {
    expect(() => replaceBlock("no markers here", "guide", "x", "README.md")).toThrow(
      "README.md: the generated block needs <!-- bench:guide --> and then <!-- /bench:guide -->",
    );
  });

  it("Should refuse a block whose closing marker comes before its opening one, rather than write the figures elsewhere", () => {
    expect(() => replaceBlock("<!-- /bench:guide -->\nkept\n<!-- bench:guide -->\n", "guide", "x", "README.md")).toThrow(
      "README.md: the generated block needs <!-- bench:guide --> and then <!-- /bench:guide -->",
    );
  });

  it("Should find the algorithm guide's block in the project's README.md, so a full bench run can rewrite it", async () => {
    const readme = await readFile(fromRoot("README.md"), "utf8");
    expect(replaceBlock(readme, "algorithm-guide", "x", "README.md")).toContain("<!-- bench:algorithm-guide -->\nx\n<!-- /bench:algorithm-guide -->");
  });
});
