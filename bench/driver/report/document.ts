/** The whole markdown report of a bench run: the run's header, then per device its main-page report, the targets over runs and the load table. @module */
import { browserArgs, CHROMIUM } from '../browser.ts';
import type { Device, Options } from '../options.ts';
import type { RealSizeResult } from '../real-size-results.ts';
import type { LoadResult, MainResult } from '../results.ts';
import type { DeviceRun } from '../tasks.ts';
import { acrossRuns } from './across-runs.ts';
import { f } from './format.ts';
import { loadReport, type LoadSummary } from './load.ts';
import { mainReport } from './main-report.ts';
import { loadTargets, mainTargets, targetsTable } from './targets.ts';

export interface BenchRun {
  options: Options;
  /** The driver, in words. */
  driver: string;
  devices: readonly DeviceRun[];
  mains: readonly MainResult[];
  loads: LoadResult[];
  /** Real-size page results (`--models real`): their environment heads the report when there is no main page. */
  reals?: readonly RealSizeResult[];
  /** Load averages (1/5/15 min) at the start and the end. */
  loadAverage: { start: number[]; end: number[] };
  seconds: number;
}

function header({ options, driver, devices, mains, loads, loadAverage, seconds, reals = [] }: BenchRun): string {
  const env = mains[0]?.env ?? reals[0]?.env;
  return [
    `# inpage-llm benchmarks — ${new Date().toISOString()}`,
    '',
    `- Driver: ${driver}. Every timing is taken inside the page (performance.now(), cross-origin isolated); compared paths are interleaved round by round.`,
    `- Browser: ${String(env?.userAgent ?? loads[0]?.userAgent ?? '?')}; ${CHROMIUM} ${browserArgs(options.driver).join(' ')}`,
    `- Machine: ${env?.hardwareConcurrency ?? loads[0]?.hardwareConcurrency ?? '?'} hardware threads; load average ${loadAverage.start.map((l) => l.toFixed(2)).join('/')} at start, ${loadAverage.end.map((l) => l.toFixed(2)).join('/')} at the end (1/5/15 min). Timer resolution ${f(env?.timerResolutionMs as number, 4)} ms; crossOriginIsolated ${String(env?.crossOriginIsolated)}; WebGPU adapter: ${String(env?.webgpuAdapter)}.`,
    `- Run: ${devices.some((d) => d.profile === 'quick') ? 'quick (smoke: few repetitions — not for conclusions)' : 'full'}${options.runs > 1 ? `; the main page ${options.runs} times (the tables are the first run's; the last table judges the targets on the median over the runs)` : ''}; devices ${devices.map((d) => `${d.device} (${d.profile})`).join(', ')}; ${seconds.toFixed(0)} s.`,
  ].join('\n');
}

export function markdownReport(run: BenchRun): string {
  const { devices, mains, loads } = run;
  const sections: string[] = [header(run)];
  const loadSummaries = new Map<Device, LoadSummary>();
  for (const d of devices) if (loads.some((l) => l.device === d.device)) loadSummaries.set(d.device, loadReport(d.device, loads));
  for (const device of new Set(devices.map((d) => d.device))) {
    const runs = mains.filter((m) => m.device === device);
    const r = runs[0];
    const ls = loadSummaries.get(device);
    if (r) sections.push(mainReport(r, mainTargets(r, ls)));
    // The repetition profile the device ran in (the pages report theirs; the load pages run in the device's).
    const profile = r?.profile ?? devices.find((d) => d.device === device)!.profile;
    if (runs.length > 1) sections.push(acrossRuns(device, runs.map((each) => mainTargets(each, undefined)), profile, ls ? loadTargets(ls, profile) : []));
    if (ls) sections.push(ls.markdown);
    if (!r && ls) sections.push(['### Targets', targetsTable(loadTargets(ls, profile))].join('\n'));
  }
  return sections.join('\n\n') + '\n';
}
