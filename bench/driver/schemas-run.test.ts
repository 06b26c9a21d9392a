// The MaskBench mode's report: a row per side as bench/README.md's table has them, and the files
// whose status differs between Node and the browser.
import { describe, expect, it } from 'vitest';
import type { FileResult, Summary } from '../../src/cli/schemas-check.ts';
import { schemasReport, summaryRow } from './schemas-run.ts';

const SUMMARY: Summary = { files: 1000, passing: 882, compile_error: 107, validation_error: 0, invalidation_error: 0, timeout: 11, ttfm_us_p50: 350, ttfm_us_p95: 3712, tbm_us_p50: 4.2, tbm_us_p99: 8812.5 };
const result = (file: string, status: FileResult['status'], ttfm: number): FileResult => ({ file, status, ttfm_us: ttfm, masks: 1, tbm_us_p50: 1, tbm_us_p99: 1, tbm_us_max: 1 });

describe('the MaskBench report', () => {
  it('writes a summary as a row of the README table', () => {
    expect(summaryRow('x', SUMMARY)).toBe('| x | 1,000 | 882 (88%) | 107 | 0 | 0 | 11 | 0.35 / 3.7 ms | 4 µs / 8.8 ms |');
    expect(summaryRow('x', { ...SUMMARY, ttfm_us_p50: 27_812, ttfm_us_p95: 759_000, tbm_us_p99: 5000 })).toContain('| 28 / 759 ms | 4 µs / 5.0 ms |');
    expect(summaryRow('x', { ...SUMMARY, ttfm_us_p50: null, ttfm_us_p95: null, tbm_us_p50: null, tbm_us_p99: null })).toContain('| – / – | – / – |');
  });

  it('names the files whose status differs, and the per-file TTFM ratio', () => {
    const side = (where: 'node' | 'browser', results: FileResult[]) => ({ where, results, summary: SUMMARY, seconds: 1 });
    const markdown = schemasReport({
      files: 2,
      sample: 2,
      tokenizer: 't',
      timeoutMs: 10_000,
      node: side('node', [result('a.json', 'passing', 100), result('b.json', 'passing', 200)]),
      browser: { ...side('browser', [result('a.json', 'passing', 150), result('b.json', 'timeout', 600)]), tokenizerMs: 1, runMs: 1, vocabularySize: 1, crossOriginIsolated: true, userAgent: 'HeadlessChrome/156.0', hardwareConcurrency: 2 },
      loadAverage: { start: [1, 1, 1], end: [1, 1, 1] },
    });
    expect(markdown).toContain('| Chromium 156, a worker (`npm run bench -- --schemas --sample 2`) |');
    expect(markdown).toContain('median 3.00× over 2 files');
    expect(markdown).toContain('- b.json: node passing, browser timeout');
  });
});
