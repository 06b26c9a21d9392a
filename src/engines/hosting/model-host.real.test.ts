// The memory bound on the real transformers.js engine: models load A, B, A with room for one.
import { describe, expect, it } from 'vitest';
import { tinyModelDir } from '../../../test/support/engines.ts';
import { createModelHost } from './model-host.ts';
import { tinyModelSpecs } from '../catalog/tiny-model-specs.ts';
import { createTransformersAdapter } from '../transformers/index.ts';

describe('model host on transformers.js', () => {
  it('keeps only the bounded set loaded when models alternate (A, B, A)', async () => {
    const adapter = createTransformersAdapter({ models: tinyModelSpecs, localModelPath: await tinyModelDir(), device: 'cpu' });
    const host = createModelHost({ adapters: [adapter], maxLoaded: 1 });
    const signal = new AbortController().signal;
    const loaded = () => host.status().filter((s) => s.state === 'loaded').map((s) => s.model);
    const chat = async () => {
      for await (const _ of host.chat({ model: 'tiny-chat', messages: [{ role: 'user', content: 'hi' }], maxTokens: 2, stop: [] }, { signal }));
    };
    await chat();
    expect(loaded()).toEqual(['tiny-chat']);
    await host.embed({ model: 'tiny-embed', input: ['hello'] }, { signal });
    expect(loaded()).toEqual(['tiny-embed']);
    await chat();
    expect(loaded()).toEqual(['tiny-chat']);
    expect(host.status().map((s) => [s.model, s.loads])).toEqual([
      ['tiny-chat', 2],
      ['tiny-embed', 1],
    ]);
  });
});
