/**
 * @module Generated blocks in a Markdown file: the text between `<!-- bench:NAME -->` and
 * `<!-- /bench:NAME -->` belongs to the bench, so that every figure the top-level README.md shows
 * is printed by a command, never copied by hand. Pure.
 */

/**
 * Returns `text` with the block `name` replaced by `body`. Throws when the markers are missing or
 * out of order, naming the file and the marker, so a README edit cannot silently drop a figure.
 *
 * @example
 * replaceBlock("a\n<!-- bench:x -->\nold\n<!-- /bench:x -->\nb", "x", "new", "README.md")
 * // "a\n<!-- bench:x -->\nnew\n<!-- /bench:x -->\nb"
 */
export function replaceBlock(text: string, name: string, body: string, file: string): string {
  const open = `<!-- bench:${name} -->`;
  const close = `<!-- /bench:${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`${file}: the generated block needs ${open} and then ${close}`);
  return `${text.slice(0, start + open.length)}\n${body}\n${text.slice(end)}`;
}
