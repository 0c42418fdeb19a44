/**
 * @module Markdown and number formatting for the report.
 */

/**
 * A Markdown table; `|` inside cells is escaped.
 *
 * @example
 * table(["a", "b"], [["1", "2"]]); // "| a | b |\n|---|---|\n| 1 | 2 |"
 */
export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const line = (cells: Array<string | number>) => `| ${cells.map((cell) => String(cell).replace(/\|/g, "\\|")).join(" | ")} |`;
  return [line(headers), `|${headers.map(() => "---").join("|")}|`, ...rows.map(line)].join("\n");
}

/** An integer with thousands separators; `–` for a missing value. */
export function int(value: number | undefined | null): string {
  return value === undefined || value === null || !Number.isFinite(value) ? "–" : Math.round(value).toLocaleString("en-US");
}

/** A number with `digits` decimals; `–` for a missing value. */
export function num(value: number | undefined | null, digits = 2): string {
  return value === undefined || value === null || !Number.isFinite(value) ? "–" : value.toFixed(digits);
}

/** A ratio, e.g. `0.93×`. */
export function ratio(value: number | undefined | null): string {
  return value === undefined || value === null || !Number.isFinite(value) ? "–" : `${value.toFixed(2)}×`;
}

/** A share as a percentage with three decimals, e.g. `0.012%`; `–` for a missing value. */
export function percent(share: number | undefined | null): string {
  return share === undefined || share === null || !Number.isFinite(share) ? "–" : `${(share * 100).toFixed(3)}%`;
}

/** Bytes as B, KiB or MiB. */
export function bytes(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return "–";
  if (value < 1024) return `${Math.round(value)} B`;
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(1)} KiB`;
  return `${(value / 1024 / 1024).toFixed(2)} MiB`;
}
