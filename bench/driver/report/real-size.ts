/**
 * The real-size report (bench/pages/real.ts on the models of `npm run models:real`): the service
 * worker path against direct engine calls and the browser's floor, the issue's targets judged on
 * them, and each curve as an SVG chart with its points.
 * @module
 */
import type { Summary } from '../../pages/lib/stats.ts';
import type { Profile } from '../options.ts';
import type { Curve, CurvePoint, PathSummary, RealSizeResult } from '../real-size-results.ts';
import { curvePaths, curveSvg } from './charts.ts';
import { exact, f, percent, ratio, type Row, signed, table } from './format.ts';
import { bootstrap, type Interval, medianInterval } from './noise.ts';
import { type Target, targetsTable } from './targets.ts';
import { allOf, type Check, judge, type Noise } from './verdict.ts';

export interface RealSizeReport {
  markdown: string;
  /** One SVG per curve drawn, under the name `chartFile` gave it (the markdown links to it). */
  charts: { file: string; svg: string }[];
}

/** The curves the page draws, in report order; any other curve follows them. */
const CURVES = ['embedLatencyVsTokens', 'embedThroughputVsConcurrency', 'ttftVsPromptTokens', 'decodeRateVsLength', 'memoryVsModels'];
const NOT_MEASURED = 'not measured';

const mb = (bytes: number | undefined) => (bytes === undefined ? '?' : `${(bytes / 1048576).toFixed(1)} MB`);
/** `a` over `b` in ms and in % of `b`. */
const over = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? ['', ''] : [signed(a - b), `${signed(((a - b) / b) * 100, 1)}%`]);

/**
 * What the one-text embedding costs the product above the browser's floor (see {@link embedTarget});
 * `floorFrom`: where the floor paths were measured, when `embed` has none (the one-worker runs).
 */
export function productOverhead(embed: RealSizeResult['embedOne'] | undefined, floorFrom = embed): number | undefined {
  const [sw, direct] = ['sw', 'direct'].map((n) => exact(embed?.paths, n)?.ms.median);
  const [floor, floorWorker = 0] = ['floor', 'floor worker'].map((n) => exact(floorFrom?.paths, n)?.ms.median);
  return sw === undefined || direct === undefined || floor === undefined ? undefined : sw - direct - (floor - floorWorker);
}

/** The one-worker block's own floor where it has one (newer results), else the one beside the two-worker runs. */
function floorOf(oneWorker: RealSizeResult['embedOne'] | undefined, embed: RealSizeResult['embedOne'] | undefined): RealSizeResult['embedOne'] | undefined {
  return exact(oneWorker?.paths, 'floor') ? oneWorker : embed;
}

function pathTable(paths: readonly PathSummary[] | undefined, names: string[]): string {
  const direct = exact(paths, 'direct')?.ms.median;
  const rows: Row[] = names.map((name) => {
    const p = exact(paths, name);
    if (!p) return [name, NOT_MEASURED, '', '', ''];
    return [name, f(p.ms.median), f(p.ms.p95), ...(name === 'sw' ? over(p.ms.median, direct) : ['', ''])];
  });
  return table(['path', 'median ms', 'p95 ms', 'sw over direct: ms', 'sw over direct: %'], rows);
}

function streamTable(stream: RealSizeResult['stream'] | undefined, title = 'Streaming'): string {
  const find = (name: string) => exact(stream?.paths, name);
  const [sw, direct] = [find('sw'), find('direct')];
  const names = [...new Set(['sw', 'direct', ...(stream?.paths.map((p) => p.name) ?? [])])];
  const rows: Row[] = names.map((name) => {
    const p = find(name);
    if (!p) return [name, NOT_MEASURED, '', '', '', ''];
    const vs = name === 'sw' && direct;
    return [
      name,
      f(p.firstTokenMs.median, 2),
      f(p.firstTokenMs.p95, 2),
      f(p.decodeTokensPerSec.median, 1),
      vs ? `${signed(p.firstTokenMs.median - direct.firstTokenMs.median, 2)} ms` : '',
      vs ? percent(p.decodeTokensPerSec.median, direct.decodeTokensPerSec.median) : '',
    ];
  });
  return [
    `### ${title} (${stream?.maxTokens ?? '?'} tokens per stream)`,
    table(['path', 'first token ms median', 'first token ms p95', 'decode tokens/s median', 'first token: sw − direct', 'decode rate: sw of direct'], rows),
    ...(sw && direct ? [] : ['', `Streaming through the service worker or directly: ${NOT_MEASURED}.`]),
  ].join('\n');
}

function batchingTable(b: RealSizeResult['batching'] | undefined): string {
  if (!b) return ['### Batching', NOT_MEASURED].join('\n');
  const row = (what: string, s: Summary | undefined, compared: string): Row =>
    s ? [what, f(s.median, 1), f(s.p95, 1), f((b.texts / s.median) * 1000, 0), compared] : [what, NOT_MEASURED, '', '', ''];
  const { concurrentSw: conc, sequentialDirect: seq, oneRequestSw: oneSw, oneRequestDirect: oneDirect } = b;
  return [
    `### Batching (${b.texts} texts; ms from the first call to the last vector in hand)`,
    table(
      ['what', 'median ms', 'p95 ms', 'texts/s', 'compared'],
      [
        row(`${b.texts} concurrent 1-text requests: sw`, conc, conc && seq ? `${ratio(seq.median / conc.median)} the speed of sequential direct` : ''),
        row(`${b.texts} sequential 1-text calls: direct`, seq, ''),
        row(`1 request × ${b.texts} texts: sw`, oneSw, oneSw && oneDirect ? `${percent(oneDirect.median, oneSw.median)} of direct's throughput` : ''),
        row(`1 request × ${b.texts} texts: direct`, oneDirect, ''),
      ],
    ),
  ].join('\n');
}

/** Compact digits for a curve's values: ms from tenths of a millisecond to seconds, rates, MB. */
const compact = (v: number | undefined) =>
  v !== undefined && Number.isInteger(v) ? String(v) : f(v, v === undefined ? 0 : Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : Math.abs(v) >= 1 ? 2 : 3);

function curveTable(curve: Curve): string {
  const paths = curvePaths(curve);
  return table([curve.x, ...paths.map((p) => `${p} (${curve.y})`)], curve.points.map((pt) => [compact(pt.x), ...paths.map((p) => compact(pt.values[p]))]));
}

async function curveSections(curves: RealSizeResult['curves'] | undefined, chartFile: (name: string) => string) {
  const all = curves ?? {};
  const names = [...CURVES, ...Object.keys(all).filter((n) => !CURVES.includes(n))];
  const markdown: string[] = [];
  const charts: RealSizeReport['charts'] = [];
  const missing: string[] = [];
  for (const name of names) {
    const curve = all[name];
    if (!curve || curve.points.length === 0) {
      missing.push(`\`${name}\``);
      continue;
    }
    const file = chartFile(name);
    charts.push({ file, svg: await curveSvg(curve) });
    markdown.push('', `### ${curve.title}`, `![${curve.title}](${file})`, '', curveTable(curve));
  }
  if (missing.length) markdown.push('', `Curves ${NOT_MEASURED}: ${missing.join(', ')}.`);
  return { markdown, charts };
}

/**
 * A target judged on `value` (with `noise`, how far it could move by chance, where the run kept
 * its samples) in `profile`, or "not measured" when a number it needs is missing.
 */
function target(name: string, value: number | undefined, at: 'most' | 'least', limit: number, unit: string, measured: (v: number) => string, profile: Profile, noise?: Noise): Target {
  if (value === undefined || !Number.isFinite(value)) return { target: name, measured: NOT_MEASURED, verdict: undefined };
  const check = { value, limit, at, unit };
  return { target: name, measured: measured(value), check, ...judge(check, noise, profile) };
}

/**
 * One-text embedding: the product's overhead above the floor = (sw − direct) − (floor − floor
 * worker), medians. sw − direct is what the HTTP-shaped path adds to the same engine call made
 * directly (comlink to the worker); floor is a bare service worker relaying to a bare worker with
 * no engine (no product code), and floor worker that bare worker asked directly: their difference
 * is the browser's own cost of the HTTP-shaped route. Without `floor worker` the whole floor is
 * subtracted (reading low by one bare page ⇄ worker round trip).
 */
function embedTarget(profile: Profile, embed: RealSizeResult['embedOne'] | undefined, one?: RealSizeResult['oneWorker']): Target {
  const name = `product overhead above the floor ≤ 0.5 ms (one-text embedding, ${embed?.tokens ?? '?'} tokens${one ? ', one worker through both routes' : ''})`;
  const block = productOverhead(one?.embedOne ?? embed, floorOf(one?.embedOne, embed));
  const paired = one?.pairedOverheadMs?.median;
  // Judged on the larger of the two estimates where both were taken (as the tiny-model bench is).
  if (block === undefined || paired === undefined) return target(name, block, 'most', 0.5, ' ms', (v) => `${f(v)} ms = (sw − direct) − (floor − floor worker)`, profile);
  const noise = one && overheadNoise(one);
  const within = (i: Interval | undefined) => (i ? ` (95% interval ${f(i.low)} to ${f(i.high)})` : '');
  const judged = target(name, Math.max(block, paired), 'most', 0.5, ' ms', (v) => `${f(v)} ms, the larger of the block estimate (${f(block)} ms${within(noise?.block)}) and the paired one (${f(paired)} ms${within(noise?.paired)})${noise?.aa ? `; A/A, direct against itself: ${signed(noise.aa.estimate)} ms${within(noise.aa)}` : ''}${noise?.pairedAA ? `, paired ${signed(noise.pairedAA.estimate)} ms${within(noise.pairedAA)}` : ''}`, profile);
  if (!noise) return judged;
  // Both estimates must hold, each judged on its own interval and A/A (the block's A/A for the
  // block estimate, the paired A/A for the paired one): the worse verdict of the two.
  const bound = (value: number): Check => ({ value, limit: 0.5, at: 'most', unit: ' ms' });
  const each = (what: string, value: number, n: Noise) => {
    const j = judge(bound(value), n, profile);
    return j.verdict === 'not judgeable' && j.why !== 'quick profile' ? { ...j, why: `${what}: ${j.why}` } : j;
  };
  return { ...judged, ...allOf(each('the block estimate', block, { interval: noise.block, aa: noise.aa }), each('the paired estimate', paired, { interval: noise.paired, aa: noise.pairedAA })) };
}

/**
 * How far the one-worker overhead estimates could move by chance (newer results, which keep their
 * samples): bootstrap intervals of the block estimate and the paired median, and the A/A
 * comparisons (the direct call against itself: as a second path of the same rounds, and in sw's
 * place among the paired four).
 */
export function overheadNoise(one: NonNullable<RealSizeResult['oneWorker']>): { block?: Interval; paired?: Interval; aa?: Interval; pairedAA?: Interval } | undefined {
  const samples = one.samples;
  if (!samples) return undefined;
  const { sw, direct, floor, 'floor worker': floorWorker, 'direct again': again } = samples.embedOne;
  return {
    ...(sw && direct && floor && floorWorker ? { block: bootstrap({ sw, direct, floor, floorWorker }, (m) => m.sw - m.direct - (m.floor - m.floorWorker)) } : {}),
    ...(samples.paired.length ? { paired: medianInterval(samples.paired) } : {}),
    ...(direct && again ? { aa: bootstrap({ direct, again }, (m) => m.again - m.direct) } : {}),
    ...(samples.pairedAA?.length ? { pairedAA: medianInterval(samples.pairedAA) } : {}),
  };
}

/** `a / b`, the same in %, and `a − b`; or undefined when either is missing. */
const div = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : a / b);
const pct = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : (a / b) * 100);
const sub = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : a - b);

/**
 * `firstToken`: one-token streams' times to the first token by path (newer one-worker results);
 * where given, the time-to-first-token target is judged on them, with how far it could move by
 * chance, instead of on the few long streams.
 */
function streamTargets(profile: Profile, stream: RealSizeResult['stream'] | undefined, note = '', firstToken?: Readonly<Record<string, readonly number[]>>): Target[] {
  const sw = exact(stream?.paths, 'sw');
  const direct = exact(stream?.paths, 'direct');
  const [swRate, directRate] = [sw, direct].map((p) => p?.decodeTokensPerSec.median);
  const [swFirst, directFirst] = [sw, direct].map((p) => p?.firstTokenMs.median);
  const first = firstTokenNoise(firstToken);
  const firstName = `time to first token via SW within 2 ms of direct${note ? ` (${note.slice(2)})` : ''}`;
  return [
    target(`streaming via SW ≥ 99% of direct tokens/s (first-to-last-token decode rate${note})`, pct(swRate, directRate), 'least', 99, '%', (v) => `${f(v, 1)}% (${f(swRate, 2)} vs ${f(directRate, 2)} tokens/s)`, profile),
    first
      ? target(firstName, first.route.estimate, 'most', 2, ' ms', (v) => `${signed(v, 2)} ms over ${first.n} one-token streams a path (95% interval ${signed(first.route.low, 1)} to ${signed(first.route.high, 1)} ms)${first.aa ? `; A/A, direct against itself: ${signed(first.aa.estimate, 2)} ms (${signed(first.aa.low, 1)} to ${signed(first.aa.high, 1)})` : ''}`, profile, { interval: first.route, ...(first.aa ? { aa: first.aa } : {}) })
      : target(firstName, sub(swFirst, directFirst), 'most', 2, ' ms', (v) => `${signed(v, 2)} ms (${f(swFirst, 2)} vs ${f(directFirst, 2)} ms)`, profile),
  ];
}

/** sw − direct and direct again − direct of the first-token samples, with their intervals. */
function firstTokenNoise(samples: Readonly<Record<string, readonly number[]>> | undefined): { n: number; route: Interval; aa?: Interval } | undefined {
  const { sw, direct, 'direct again': again } = samples ?? {};
  const route = sw && direct ? bootstrap({ sw, direct }, (m) => m.sw - m.direct) : undefined;
  if (!route) return undefined;
  const aa = again && direct ? bootstrap({ direct, again }, (m) => m.again - m.direct) : undefined;
  return { n: Math.min(sw!.length, direct!.length), route, ...(aa ? { aa } : {}) };
}

export function realSizeTargets(r: RealSizeResult): Target[] {
  const p = r.profile;
  const b = r.batching;
  const [conc, seq, oneSw, oneDirect] = [b?.concurrentSw, b?.sequentialDirect, b?.oneRequestSw, b?.oneRequestDirect].map((s) => s?.median);
  const texts = b?.texts ?? '?';
  return [
    target(`${texts} concurrent 1-text requests via SW ≥ 2× ${texts} sequential direct calls`, div(seq, conc), 'least', 2, '×', (v) => `${ratio(v)} (${f(conc, 0)} vs ${f(seq, 0)} ms)`, p),
    target(`1 request × ${texts} texts via SW ≥ 97% of direct throughput`, pct(oneDirect, oneSw), 'least', 97, '%', (v) => `${f(v, 1)}% (${f(oneSw, 1)} vs ${f(oneDirect, 1)} ms)`, p),
    ...streamTargets(p, r.stream),
    embedTarget(p, r.embedOne),
    // The same, with one engine worker behind both routes: the route alone.
    ...(r.oneWorker ? [...streamTargets(p, r.oneWorker.stream, ', one worker through both routes', r.oneWorker.samples?.firstToken), embedTarget(p, r.embedOne, r.oneWorker)] : []),
  ];
}

function header(r: RealSizeResult): string {
  const env = r.env ?? {};
  const checks = Object.entries(r.checks ?? {});
  return [
    `## Real-size models: ${r.device.toUpperCase()} (${r.profile} profile)`,
    '',
    `- Models (real-shaped, generated by \`npm run models:real\`): embedding \`${r.models?.embed.id ?? '?'}\` (${mb(r.models?.embed.bytes)}), chat \`${r.models?.chat.id ?? '?'}\` (${mb(r.models?.chat.bytes)}).`,
    `- Device: ${r.device.toUpperCase()}${env.webgpuAdapter ? ` (WebGPU adapter: ${String(env.webgpuAdapter)})` : ''}; ${String(env.hardwareConcurrency ?? '?')} hardware threads. Paths: **sw** = the product's service worker to its engine worker; **direct** = the same engine called over comlink (createWorkerEngine); **floor** = a bare service worker relaying to a bare worker, no engine.`,
    ...(checks.length ? [`- Checks: ${checks.map(([k, v]) => `${k} ${JSON.stringify(v)}`).join('; ')}.`] : []),
  ].join('\n');
}

/** The markdown of one real-size run and its charts, each SVG named by `chartFile(curve name)`. */
export async function realSizeReport(result: RealSizeResult, chartFile: (name: string) => string): Promise<RealSizeReport> {
  const curves = await curveSections(result.curves, chartFile);
  const overhead = productOverhead(result.embedOne);
  const markdown = [
    header(result),
    '',
    `### One-text embedding (${result.embedOne?.tokens ?? '?'} tokens, one request at a time)`,
    pathTable(result.embedOne?.paths, ['sw', 'direct', 'floor', 'floor worker']),
    '',
    `Product overhead above the floor = (sw − direct) − (floor − floor worker) = ${overhead === undefined ? NOT_MEASURED : `${f(overhead)} ms`} (medians).`,
    '',
    `### One-token chat completion (${result.chatOne?.promptTokens ?? '?'} prompt tokens, whole response)`,
    pathTable(result.chatOne?.paths, ['sw', 'direct']),
    '',
    streamTable(result.stream),
    '',
    ...oneWorkerSection(result),
    batchingTable(result.batching),
    ...curves.markdown,
    '',
    backendTable(result),
    '',
    '### Targets',
    targetsTable(realSizeTargets(result)),
    '',
    'Product overhead above the floor = (sw − direct) − (floor − floor worker), medians of the one-text embedding: sw − direct is what the HTTP-shaped path adds to the same engine call made directly; floor is a bare service worker relaying to a bare worker (no engine, no product code), floor worker that bare worker asked directly, so their difference is the browser’s own cost of the HTTP-shaped route.',
  ];
  return { markdown: markdown.join('\n'), charts: curves.charts };
}

/** The one-text embedding and the streams with one engine worker behind both routes (the route alone). */
function oneWorkerSection(result: RealSizeResult): string[] {
  const one = result.oneWorker;
  if (!one) return [];
  const ownFloor = floorOf(one.embedOne, result.embedOne) === one.embedOne;
  const overhead = productOverhead(one.embedOne, floorOf(one.embedOne, result.embedOne));
  return [
    `### One worker through both routes: one-text embedding (${one.embedOne.tokens} tokens)`,
    'The service worker linked to the very engine worker the direct calls go to (above, sw and direct are two workers, each with its own copy of the models).',
    '',
    pathTable(one.embedOne.paths, [...(ownFloor ? ['sw', 'direct', 'floor', 'floor worker'] : ['sw', 'direct']), ...(exact(one.embedOne.paths, 'direct again') ? ['direct again'] : [])]),
    '',
    `Product overhead above the floor, one worker = (sw − direct) − (floor − floor worker) = ${overhead === undefined ? NOT_MEASURED : `${f(overhead)} ms`} (${ownFloor ? `the floor measured in the same rounds${one.floorBusyMs ? `, its bare worker spending ${f(one.floorBusyMs, 1)} ms of CPU per answer as the engine does for this text` : ''}` : 'the floor from the one-text table above'}).`,
    ...(one.pairedOverheadMs ? ['', `Paired estimate, one worker: the four requests back to back, one value per sample: ${f(one.pairedOverheadMs.median)} ms median over ${one.pairedOverheadMs.n} samples (p95 ${f(one.pairedOverheadMs.p95)} ms).`] : []),
    ...noiseLines(one),
    ...byLength(one.embedVsTokens),
    '',
    streamTable(one.stream, 'One worker through both routes: streaming'),
    '',
  ];
}

/** The intervals of {@link overheadNoise}, in words. */
function noiseLines(one: NonNullable<RealSizeResult['oneWorker']>): string[] {
  const noise = overheadNoise(one);
  if (!noise) return [];
  const span = (i: Interval | undefined) => (i ? `${signed(i.estimate)} ms, 95% interval ${signed(i.low)} to ${signed(i.high)} ms` : NOT_MEASURED);
  const first = firstTokenNoise(one.samples?.firstToken);
  return [
    '',
    `How far these could move by chance (bootstrap over each path's samples, 2000 redraws): the block estimate ${span(noise.block)}; the paired median ${span(noise.paired)}; A/A, the direct call against itself as a second path of the same rounds (the route adds nothing there: what it reads is chance and the method's own bias): ${span(noise.aa)}${noise.pairedAA ? `; paired A/A, direct again − direct with the direct call in sw's place among the four: ${span(noise.pairedAA)}` : ''}.`,
    ...(first ? ['', `Time to first token, one-token streams (${first.n} a path, medians): sw − direct ${span(first.route)}; A/A, direct again − direct ${span(first.aa)}.`] : []),
  ];
}

/** The same work on WASM and on WebGPU: what `device: 'auto'` weighs (docs/decisions/auto-backend.md). */
function backendTable(result: RealSizeResult): string {
  const rows = result.backends ?? [];
  if (rows.length === 0) return `### Backends\n${NOT_MEASURED}`;
  return [
    `### Backends: the same work on WASM and on WebGPU (${String(result.env.webgpuAdapter ?? 'adapter unknown')})`,
    '| backend | embedder, 16 tokens (ms) | embedder, 128 tokens (ms) | tiny-chat decode (tokens/s) |',
    '|---|---:|---:|---:|',
    ...rows.map((b) => `| ${b.name} | ${f(b.embed16Ms, 1)} | ${f(b.embed128Ms, 1)} | ${f(b.tinyChatTokensPerSec, 0)} |`),
  ].join('\n');
}

/** sw − direct for one text of each length on the one worker: a per-request cost stays flat, one that grows with the engine's work does not. */
function byLength(points: readonly CurvePoint[] | undefined): string[] {
  if (!points?.length) return [];
  const each = points.map((p) => {
    const sw = p.values.sw;
    const direct = p.values.direct;
    return sw === undefined || direct === undefined ? `${p.x} tokens: ${NOT_MEASURED}` : `${p.x} tokens ${signed(sw - direct, 2)} ms (${f(direct, 1)} ms direct)`;
  });
  return ['', `sw − direct by input length, one worker (medians): ${each.join('; ')}.`];
}
