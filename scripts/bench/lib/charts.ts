/**
 * @module Vega-Lite → Vega → SVG, in process: `vega`'s headless View renders SVG markup without
 * a canvas or a browser, so the charts need nothing beyond two npm packages.
 */
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";

/** Shared look: white background, system fonts, room for labels. */
const config = {
  background: "white",
  font: "Helvetica, Arial, sans-serif",
  axis: { labelFontSize: 11, titleFontSize: 12 },
  legend: { labelFontSize: 11, titleFontSize: 12 },
  title: { fontSize: 14, anchor: "start" },
} as const;

/**
 * Renders a Vega-Lite spec to an SVG document.
 *
 * @example
 * const svg = await renderSvg({ data: { values }, mark: "bar", encoding: { … } });
 */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const withConfig = { ...spec, config: { ...config, ...(spec.config ?? {}) } } as TopLevelSpec;
  const view = new vega.View(vega.parse(compile(withConfig).spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
