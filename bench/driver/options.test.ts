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
