import { describe, expect, it } from 'vitest';
import { ScriptedAdapter } from '../../../test/support/scripted-adapter.ts';
import { tinyModelDir } from '../../../test/support/engines.ts';
import { createModelHost } from './model-host.ts';
import { tinyModelSpecs } from '../catalog/tiny-model-specs.ts';
import { createTransformersAdapter } from '../transformers/index.ts';

const signal = () => new AbortController().signal;
const texts = Array.from({ length: 40 }, (_, i) => `text number ${i} about ${['cats', 'rivers', 'markets', 'stars'][i % 4]}`);

describe('embedding batches', () => {
  it('merges concurrent requests into few engine calls, each answer exactly its own', async () => {
    const adapter = new ScriptedAdapter();
    const host = createModelHost({ adapters: [adapter] });
    const alone = await Promise.all(texts.slice(0, 3).map(async (t) => host.embed({ model: 'scripted-embed', input: [t] }, { signal: signal() })));
    adapter.embedCalls.length = 0;
    const together = await Promise.all(texts.map((t) => host.embed({ model: 'scripted-embed', input: [t] }, { signal: signal() })));
    expect(adapter.embedCalls.length).toBeLessThanOrEqual(2);
    expect(adapter.embedCalls.flatMap((c) => c.input)).toEqual(texts);
    for (let i = 0; i < 3; i++) {
      expect(together[i]!.embeddings).toEqual(alone[i]!.embeddings);
      expect(together[i]!.promptTokens).toBe(alone[i]!.promptTokens);
    }
  });

  it('merges requests that arrive as separate tasks while the engine blocks its thread', async () => {
    // Like onnxruntime's WASM backend: the engine call runs to its end without yielding, so the
    // requests sent meanwhile wait as tasks (here timers) until it returns.
    const adapter = new ScriptedAdapter();
    const embed = adapter.embed.bind(adapter);
    adapter.embed = (request) => {
      const until = performance.now() + 20;
      while (performance.now() < until);
      return embed(request);
    };
    const host = createModelHost({ adapters: [adapter] });
    await host.load('scripted-embed');
    const later = texts.slice(1, 11).map((t) => new Promise((resolve) => setTimeout(() => resolve(host.embed({ model: 'scripted-embed', input: [t] }, { signal: signal() })), 0)));
    await Promise.all([host.embed({ model: 'scripted-embed', input: [texts[0]!] }, { signal: signal() }), ...later]);
    expect(adapter.embedCalls.map((c) => c.input.length)).toEqual([1, 10]);
    expect(host.status().find((m) => m.model === 'scripted-embed')).toMatchObject({ requests: 11, engineCalls: 2 });
  });

  it('keeps multi-input requests whole and in order, and caps the batch size', async () => {
    const adapter = new ScriptedAdapter();
    const host = createModelHost({ adapters: [adapter], batching: { maxBatchInputs: 8 } });
    const requests = [texts.slice(0, 5), texts.slice(5, 9), texts.slice(9, 20), texts.slice(20, 21)];
    const results = await Promise.all(requests.map((input) => host.embed({ model: 'scripted-embed', input }, { signal: signal() })));
    results.forEach((r, i) => expect(r.embeddings).toHaveLength(requests[i]!.length));
    // A request larger than the cap goes alone; others fill batches up to the cap.
    expect(adapter.embedCalls.map((c) => c.input.length)).toEqual([5, 4, 11, 1].reduce<number[]>((acc, n) => {
      const last = acc.at(-1);
      if (last !== undefined && last + n <= 8) acc[acc.length - 1] = last + n;
      else acc.push(n);
      return acc;
    }, []));
  });

  it('lets an aborted request leave its batch without disturbing the others', async () => {
    const adapter = new ScriptedAdapter();
    const host = createModelHost({ adapters: [adapter] });
    const controller = new AbortController();
    const gone = host.embed({ model: 'scripted-embed', input: ['leaving'] }, { signal: controller.signal });
    const staying = host.embed({ model: 'scripted-embed', input: ['staying'] }, { signal: signal() });
    controller.abort();
    await expect(gone).rejects.toMatchObject({ code: 'aborted' });
    expect((await staying).embeddings).toHaveLength(1);
    expect(adapter.embedCalls.flatMap((c) => c.input)).toEqual(['staying']);
  });

  it('refuses texts beyond the waiting bound with a 429', async () => {
    const host = createModelHost({ adapters: [new ScriptedAdapter()], batching: { maxQueuedInputs: 10 } });
    const first = host.embed({ model: 'scripted-embed', input: texts.slice(0, 8) }, { signal: signal() });
    await expect(host.embed({ model: 'scripted-embed', input: texts.slice(8, 12) }, { signal: signal() })).rejects.toMatchObject({ code: 'queue_full', retryAfter: 1 });
    await first;
  });

  it('on the real transformers.js engine, batched vectors equal unbatched ones bit for bit', async () => {
    const adapter = createTransformersAdapter({ models: tinyModelSpecs, localModelPath: await tinyModelDir(), device: 'cpu' });
    const host = createModelHost({ adapters: [adapter] });
    const alone: Awaited<ReturnType<typeof host.embed>>[] = [];
    for (const t of texts) alone.push(await host.embed({ model: 'tiny-embed', input: [t] }, { signal: signal() }));
    const together = await Promise.all(texts.map((t) => host.embed({ model: 'tiny-embed', input: [t] }, { signal: signal() })));
    together.forEach((r, i) => {
      expect(Array.from(r.embeddings[0]!)).toEqual(Array.from(alone[i]!.embeddings[0]!));
      expect(r.promptTokens).toBe(alone[i]!.promptTokens);
    });
  });
});
