/** Each target over several runs of the main page (`--runs N`): every run's value, and the verdict on their median. @module */
import type { Device, Profile } from '../options.ts';
import { f, type Row, table } from './format.ts';
import { median } from './medians.ts';
import type { Target } from './targets.ts';
import { exactly, judge, shown } from './verdict.ts';

const runsOf = (n: number) => `${n} run${n === 1 ? '' : 's'}`;

/**
 * `profile`: the runs' repetition profile (in the quick profile no target is met); `loads`: the
 * load targets, judged once on the load runs (not on the main page's), with the verdict they have.
 */
export function acrossRuns(device: Device, runs: Target[][], profile: Profile, loads: readonly Target[] = []): string {
  const fromLoads: Row[] = loads.map((t) => [t.target, 'from the load runs', t.check ? `${f(t.check.value, 2)}${t.check.unit}` : t.measured, shown(t)]);
  const rows: Row[] = runs[0]!.map((first, i) => {
    const all = runs.map((targets) => targets[i]!);
    const measured = all.filter((t) => t.verdict !== undefined);
    if (measured.length === 0) return [first.target, all.map(() => 'not measured').join(', '), '', 'n/a'];
    const c = measured.find((t) => t.check)?.check;
    if (!c) {
      // An exact count: it holds when it held in every run that measured it.
      // (Only the quick profile makes an exact count not judgeable, and only where it held.)
      const each = all.map((t) => (t.verdict === undefined ? 'not measured' : t.verdict === 'not met' ? 'failed' : 'held'));
      const held = each.every((e) => e !== 'failed');
      return [first.target, each.join(', '), '', shown(exactly(held, profile, `in each of ${runsOf(measured.length)}`))];
    }
    const values = measured.flatMap((t) => (t.check ? [t.check.value] : []));
    const middle = median(values);
    const show = (v: number) => `${f(v, c.unit === ' ms' ? 3 : 2)}${c.unit}`;
    return [first.target, all.map((t) => (t.check ? show(t.check.value) : 'not measured')).join(', '), show(middle), shown(judge({ ...c, value: middle }, {}, profile, `median of ${runsOf(values.length)}`))];
  });
  rows.push(...fromLoads);
  return [
    `### Targets over ${runs.length} runs of the main page (${device.toUpperCase()}; load targets from the load runs)`,
    table(['target', 'each run', 'median', 'verdict (on the median)'], rows),
    '',
    'Each run is a fresh browser doing the whole main page; a target is met when the median of its runs holds it (the exactness target: in every run), and the verdict says how many runs that median is of. The value judged is the one in the single-run table: for the overhead, the larger of the two estimates; for streaming, the lower of the two rates. A median of a few runs has no interval here: read a verdict near its bound as one the runs cannot settle.',
  ].join('\n');
}
