import { describe, expect, it } from 'vitest';
import { parseArgs } from './options.ts';

describe('parseArgs --sections', () => {
  it('takes the sections of the page that runs', () => {
    expect(parseArgs(['--sections', 'stream,burst']).sections).toEqual(['stream', 'burst']);
    expect(parseArgs(['--models', 'real', '--sections', 'one-worker']).sections).toEqual(['one-worker']);
    expect(parseArgs([]).sections).toBeUndefined();
  });

  it('refuses a section the page does not have, naming the ones it has', () => {
    expect(() => parseArgs(['--sections', 'one-worker'])).toThrow('--sections: one-worker is not a section of the main page (latency, stream, grammar, embeddings, burst)');
    expect(() => parseArgs(['--models', 'real', '--sections', 'latency,curvs'])).toThrow('--sections: latency, curvs are not a section of the real-size page (main, curves, memory, backends, one-worker)');
  });
});

describe('parseArgs --schemas', () => {
  it('takes the sample, the limit and the tokenizer folder', () => {
    expect(parseArgs(['--schemas', '--sample', '200', '--limit=5', '--tokenizer', 'dir'])).toMatchObject({ schemas: true, sample: 200, limit: 5, tokenizer: 'dir' });
    expect(parseArgs([])).toMatchObject({ schemas: false, sample: undefined, limit: undefined, tokenizer: undefined });
  });

  it('refuses a sample that is not a whole number ≥ 1', () => {
    expect(() => parseArgs(['--schemas', '--sample', '0'])).toThrow('--sample takes a whole number ≥ 1 (got 0)');
    expect(() => parseArgs(['--schemas', '--limit', 'ten'])).toThrow('--limit takes a whole number ≥ 1 (got ten)');
  });
});
