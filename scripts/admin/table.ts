/**
 * @module PURE: plain-text tables and durations for the admin CLI's output.
 */

/** A column: its heading, and whether its cells line up on the right (numbers). */
export interface Column {
  heading: string;
  right?: boolean;
}

/**
 * Lays rows out under their headings, columns two spaces apart, without trailing spaces.
 *
 * @example
 * table([{ heading: "rule" }, { heading: "limit", right: true }], [["default", "100"]]);
 * // "rule     limit\ndefault    100"
 */
export function table(columns: Column[], rows: string[][]): string {
  const lines = [columns.map((column) => column.heading), ...rows];
  const widths = columns.map((_, index) => Math.max(...lines.map((cells) => (cells[index] ?? "").length)));
  return lines
    .map((cells) =>
      columns
        .map((column, index) => {
          const cell = cells[index] ?? "";
          return column.right ? cell.padStart(widths[index]!) : cell.padEnd(widths[index]!);
        })
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

const UNITS = [
  ["d", 86_400_000],
  ["h", 3_600_000],
  ["m", 60_000],
  ["s", 1_000],
] as const;

/**
 * A window as `RATE_LIMIT` would write it (the largest unit that divides it), so that the output
 * reads like the configuration.
 *
 * @example
 * windowText(60_000); // "1m"
 * windowText(90_000); // "90s"
 * windowText(250); // "250ms"
 */
export function windowText(ms: number): string {
  for (const [unit, size] of UNITS) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/**
 * A wait, rounded for a reader: milliseconds under a second, tenths of seconds under a minute,
 * then minutes and seconds, hours and minutes.
 *
 * @example
 * waitText(42_100); // "42.1 s"
 * waitText(125_000); // "2 min 5 s"
 * waitText(0); // "now"
 */
export function waitText(ms: number): string {
  if (ms <= 0) return "now";
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  // Below 59.95 s, so that toFixed never shows "60.0 s".
  if (ms < 59_950) return `${(ms / 1_000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1_000);
  if (seconds < 3_600) return pair(Math.floor(seconds / 60), "min", seconds % 60, "s");
  const minutes = Math.round(seconds / 60);
  return pair(Math.floor(minutes / 60), "h", minutes % 60, "min");
}

/** "2 min 5 s", but "59 min" rather than "59 min 0 s". */
function pair(major: number, majorUnit: string, minor: number, minorUnit: string): string {
  return minor === 0 ? `${major} ${majorUnit}` : `${major} ${majorUnit} ${minor} ${minorUnit}`;
}
