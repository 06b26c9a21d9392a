/** Each target over several runs of the main page (`--runs N`): every run's value, and the verdict on their median. @module */
import type { Device } from '../options.ts';
import { f, type Row, table } from './format.ts';
import { median } from './medians.ts';
import { holds, type Target } from './targets.ts';

export function acrossRuns(device: Device, runs: Target[][]): string {
  const rows: Row[] = runs[0]!.map((first, i) => {
    const all = runs.map((targets) => targets[i]!);
    if (!first.check) return [first.target, all.map((t) => (t.met ? 'yes' : 'no')).join(', '), '', all.every((t) => t.met) ? 'yes' : '**no**'];
    const values = all.map((t) => t.check!.value);
    const middle = median(values);
    const show = (v: number) => `${f(v, first.check!.unit === ' ms' ? 3 : 2)}${first.check!.unit}`;
    return [first.target, values.map(show).join(', '), show(middle), holds(first.check, middle) ? 'yes' : '**no**'];
  });
  return [
    `### Targets over ${runs.length} runs of the main page (${device.toUpperCase()}; load targets from the load runs)`,
    table(['target', 'each run', 'median', 'met (on the median)'], rows),
    '',
    'Each run is a fresh browser doing the whole main page; a target holds when the median of its runs does (the exactness target: in every run). The value judged is the one in the single-run table: for the overhead, the larger of the two estimates; for streaming, the lower of the two rates.',
  ].join('\n');
}
