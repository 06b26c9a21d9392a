import { describe, expect, it } from 'vitest';
import type { Curve } from '../real-size-results.ts';
import { curveSpec, curveSvg, normaliseIds, PATH_COLOURS } from './charts.ts';

const curve: Curve = {
  title: 'Embedding throughput vs concurrency',
  x: 'requests in flight',
  y: 'texts/s',
  points: [1, 4, 16, 64].map((x) => ({ x, values: { direct: 90, sw: 100 + x, raw: 95, floor: 400 } })),
};

/** The `d` of each drawn line, by its stroke colour. */
const lines = (svg: string) => [...svg.matchAll(/<path [^>]*aria-roledescription="line mark" d="([^"]+)" stroke="([^"]+)"/g)].map((m) => ({ d: m[1]!, stroke: m[2]! }));

describe('curveSvg', () => {
  it('draws a well-formed SVG with its title, axis titles and one line per path in the fixed colours', async () => {
    const svg = await curveSvg(curve);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('Embedding throughput vs concurrency');
    expect(svg).toContain("X-axis titled 'requests in flight'");
    expect(svg).toContain("Y-axis titled 'texts/s'");
    const drawn = lines(svg);
    expect(drawn).toHaveLength(4);
    expect(drawn.map((l) => l.stroke).sort()).toEqual(Object.values(PATH_COLOURS).sort());
    // Points on the lines: one symbol per value.
    expect(svg.match(/aria-roledescription="point"/g)).toHaveLength(16);
  });

  it('gives the same string for the same curve', async () => {
    const [a, b] = [await curveSvg(curve), await curveSvg(structuredClone(curve))];
    expect(a).toBe(b);
    expect(a).not.toMatch(/\sid="(?!chart-id-)/);
  });

  it('draws x on a log scale when the curve asks for it', async () => {
    expect(curveSpec({ ...curve, logX: true })).toMatchObject({ encoding: { x: { scale: { type: 'log' } } } });
    expect(await curveSvg({ ...curve, logX: true })).toContain('for a log scale');
    expect(await curveSvg(curve)).not.toContain('for a log scale');
  });

  it('keeps the colour of a path when others are missing, and leaves out values it cannot place', async () => {
    const svg = await curveSvg({ ...curve, logX: true, points: [{ x: 0, values: { raw: 1 } }, { x: 2, values: { raw: 2, sw: Number.NaN } }, { x: 8, values: { raw: 3 } }] });
    expect(lines(svg).map((l) => l.stroke)).toEqual([PATH_COLOURS.raw]);
    expect(svg.match(/aria-roledescription="point"/g)).toHaveLength(2);
  });
});

describe('normaliseIds', () => {
  it('renumbers ids and their references in order of appearance', () => {
    const svg = '<svg><defs><clipPath id="clip7"><rect/></clipPath><linearGradient id="gradient3"/></defs><g clip-path="url(#clip7)"><path fill="url(#gradient3)"/><use href="#clip7"/></g></svg>';
    expect(normaliseIds(svg)).toBe(
      '<svg><defs><clipPath id="chart-id-1"><rect/></clipPath><linearGradient id="chart-id-2"/></defs><g clip-path="url(#chart-id-1)"><path fill="url(#chart-id-2)"/><use href="#chart-id-1"/></g></svg>',
    );
  });
});
