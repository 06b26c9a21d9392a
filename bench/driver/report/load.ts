/** The load table (cold and warm loads of the default models, product against transformers.js) and the warm-load numbers its target is judged on. @module */
import { summarize, type Summary } from '../../pages/lib/stats.ts';
import type { Device } from '../options.ts';
import type { LoadResult } from '../results.ts';
import { f, ratio, type Row, table } from './format.ts';

export interface LoadSummary {
  markdown: string;
  warmRatio?: number;
  warmCallsRatio?: number;
  productWarm?: number;
  rawWarm?: number;
  /** How many warm loads each warm median is of (the product's, transformers.js's). */
  productWarmN?: number;
  rawWarmN?: number;
}

export function loadReport(device: Device, results: LoadResult[]): LoadSummary {
  const pick = (engine: string, cold: boolean) => results.filter((r) => r.device === device && r.engine === engine && r.cold === cold);
  const rows: Row[] = [];
  const med = (xs: LoadResult[], key: keyof LoadResult) => summarize(xs.map((x) => x[key] as number));
  const stats: Record<string, Summary> = {};
  for (const cold of [true, false]) {
    for (const engine of ['raw', 'product'] as const) {
      const xs = pick(engine, cold);
      if (xs.length === 0) continue;
      const total = med(xs, 'startToLoadedMs');
      const calls = med(xs, 'loadCallsMs');
      stats[`${engine}-${cold}`] = total;
      stats[`${engine}-${cold}-calls`] = calls;
      const base = stats[`raw-${cold}`];
      rows.push([
        `${cold ? 'cold' : 'warm'}: ${engine === 'raw' ? 'transformers.js pipeline() in a plain worker' : 'product: startInference + inference.load()'}`,
        xs.length,
        f(total.median, 1),
        f(total.p95, 1),
        engine === 'product' && base ? ratio(total.median / base.median) : '',
        f(med(xs, 'workerReadyMs').median, 1),
        f(calls.median, 1),
        engine === 'product' && stats[`raw-${cold}-calls`] ? ratio(calls.median / stats[`raw-${cold}-calls`]!.median) : '',
      ]);
    }
  }
  const markdown = [
    `### Load of ${results.find((r) => r.device === device)?.models ?? 'the default models (tiny-chat + tiny-embed)'} on ${device.toUpperCase()} (ms)`,
    table(['path', 'n', 'start → loaded median', 'p95', 'ratio to transformers.js', 'worker answering', 'load calls alone', 'ratio (load calls)'], rows),
    '',
    'start → loaded: from the page script’s first line (before the runtime or worker exists) to both models loaded; load calls alone: the chat model then the embedder, with the worker already answering. Cold = a fresh browser profile (empty HTTP cache, no service worker); warm = reloads of the same profile.',
  ].join('\n');
  const pw = stats['product-false']?.median;
  const rw = stats['raw-false']?.median;
  const pwc = stats['product-false-calls']?.median;
  const rwc = stats['raw-false-calls']?.median;
  return { markdown, productWarm: pw, rawWarm: rw, productWarmN: stats['product-false']?.n, rawWarmN: stats['raw-false']?.n, warmRatio: pw !== undefined && rw !== undefined ? pw / rw : undefined, warmCallsRatio: pwc !== undefined && rwc !== undefined ? pwc / rwc : undefined };
}
