/**
 * A real-size curve drawn as an SVG string: a vega-lite line chart (points on the lines, one line
 * per path) compiled to vega and rendered headless in Node (no canvas, no DOM).
 * @module
 */
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { Curve } from '../real-size-results.ts';

/** Fixed colours per path, so every chart of a report (and of every run) agrees. */
export const PATH_COLOURS: Readonly<Record<string, string>> = { sw: '#d62728', direct: '#1f77b4', floor: '#7f7f7f', raw: '#2ca02c' };
/** For a path with no colour of its own: taken in turn, by the path's place in {@link curvePaths}. */
const SPARE_COLOURS = ['#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#bcbd22', '#17becf'];

/** The curve's path names: the known ones in {@link PATH_COLOURS} order, then the others sorted. */
export function curvePaths(curve: Curve): string[] {
  const names = new Set(curve.points.flatMap((p) => Object.keys(p.values)));
  const known = Object.keys(PATH_COLOURS).filter((n) => names.has(n));
  return [...known, ...[...names].filter((n) => !(n in PATH_COLOURS)).sort()];
}

/** The vega-lite spec of `curve`. Points a chart cannot place (a non-finite value, x ≤ 0 on a log scale) are left out. */
export function curveSpec(curve: Curve): TopLevelSpec {
  const paths = curvePaths(curve);
  let spare = 0;
  const colours = paths.map((n) => PATH_COLOURS[n] ?? SPARE_COLOURS[spare++ % SPARE_COLOURS.length]!);
  const values = curve.points.flatMap((p) =>
    Object.entries(p.values)
      .filter(([, y]) => Number.isFinite(y) && Number.isFinite(p.x) && (!curve.logX || p.x > 0))
      .map(([path, y]) => ({ x: p.x, y, path })),
  );
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: curve.title,
    width: 420,
    height: 260,
    background: 'white',
    data: { values },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'x', type: 'quantitative', title: curve.x, scale: curve.logX ? { type: 'log', nice: false } : { zero: false } },
      y: { field: 'y', type: 'quantitative', title: curve.y },
      color: { field: 'path', type: 'nominal', title: 'path', scale: { domain: paths, range: colours } },
    },
  };
}

/**
 * Vega numbers clip paths and gradients from a counter that lives as long as the process, so the
 * same chart drawn twice could differ in its ids: they are renumbered here in order of appearance.
 */
export function normaliseIds(svg: string): string {
  const ids = new Map<string, string>();
  for (const [, id] of svg.matchAll(/\sid="([^"]+)"/g)) if (!ids.has(id!)) ids.set(id!, `chart-id-${ids.size + 1}`);
  if (ids.size === 0) return svg;
  return svg.replace(/(\sid="|url\(#|href="#)([^")]+)/g, (whole, lead: string, id: string) => (ids.has(id) ? `${lead}${ids.get(id)}` : whole));
}

/** `curve` as a standalone SVG document; the same curve always gives the same string. */
export async function curveSvg(curve: Curve): Promise<string> {
  const view = new View(parse(compile(curveSpec(curve)).spec), { renderer: 'none' });
  try {
    return normaliseIds(await view.toSVG());
  } finally {
    view.finalize();
  }
}
