// Real onnxruntime-node inference on the generated tiny chat model: the same answers with the
// prefix cache on and off, and the tokens it skipped, across turns, branches and cut replies.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatEvent, ChatMessage, ChatRequest } from '../../core/engine.ts';
import { generateTinyModels } from '../../tiny-models/generate.ts';
import type { EngineAdapter } from '../hosting/adapter.ts';
import { tinyModelSpecs } from '../catalog/tiny-model-specs.ts';
import { createTransformersAdapter } from './transformers-engine.ts';

let dir: string;
let cached: EngineAdapter;
let uncached: EngineAdapter;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tiny-models-'));
  await generateTinyModels(dir);
  cached = createTransformersAdapter({ models: tinyModelSpecs, localModelPath: dir, device: 'cpu' });
  uncached = createTransformersAdapter({ models: tinyModelSpecs, localModelPath: dir, device: 'cpu', prefixCacheBytes: 0 });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Answer {
  readonly text: string;
  readonly promptTokens: number;
  readonly cachedTokens: number;
  readonly reason: string;
}

async function ask(engine: EngineAdapter, messages: readonly ChatMessage[], overrides: Partial<ChatRequest> = {}, leaveAfter?: number): Promise<Answer> {
  const request: ChatRequest = { model: 'tiny-chat', messages, maxTokens: 12, stop: [], ...overrides };
  let text = '';
  let start: Extract<ChatEvent, { type: 'start' }> | undefined;
  let reason = 'stop';
  let tokens = 0;
  for await (const event of engine.chat(request, { signal: new AbortController().signal })) {
    if (event.type === 'start') start = event;
    if (event.type === 'token') {
      text += event.text;
      // A consumer that leaves midway, as the gateway does at a stop string.
      if (++tokens === leaveAfter) {
        reason = 'left';
        break;
      }
    }
    if (event.type === 'end') reason = event.reason;
  }
  return { text, promptTokens: start!.promptTokens, cachedTokens: start!.cachedTokens ?? 0, reason };
}

const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });

describe('the prefix cache on transformers.js', () => {
  it('reads only a conversation\'s new turn, and answers as without the cache', async () => {
    const history: ChatMessage[] = [{ role: 'system', content: 'You are a storyteller.' }];
    let previous = 0;
    for (const [turn, line] of ['Tell me a story.', 'And then?', 'Who was there?', 'How did it end?'].entries()) {
      history.push(user(line));
      const on = await ask(cached, history);
      const off = await ask(uncached, history);
      expect(on.text, `turn ${turn + 1}`).toBe(off.text);
      expect(on.promptTokens).toBe(off.promptTokens);
      expect(off.cachedTokens).toBe(0);
      if (turn === 0) expect(on.cachedTokens).toBe(0);
      // From the second turn on, everything up to the previous prompt at least was read before.
      else expect(on.cachedTokens).toBeGreaterThanOrEqual(previous);
      expect(on.cachedTokens).toBeLessThan(on.promptTokens);
      previous = on.promptTokens;
      history.push(assistant(on.text));
    }
    // What it keeps shows in the model's local state (GET /models), and goes when the model is unloaded.
    const kept = (await cached.localFacts!()).get('tiny-chat')!.prefixCache!;
    expect(kept.entries).toBeGreaterThanOrEqual(1);
    expect(kept.bytes).toBeGreaterThan(0);
    expect(kept.bytes).toBeLessThanOrEqual(kept.maxBytes);
    expect((await uncached.localFacts!()).get('tiny-chat')!.prefixCache).toEqual({ entries: 0, bytes: 0, maxBytes: 0 });
    await cached.unload('tiny-chat');
    expect((await cached.localFacts!()).get('tiny-chat')!.prefixCache).toMatchObject({ entries: 0, bytes: 0 });
  });

  it('serves branches, regenerations and a reply cut short with the same answers as without it', async () => {
    const base = [{ role: 'system' as const, content: 'Branches.' }, user('First question here.')];
    const first = await ask(cached, base);
    const again = await ask(cached, base);
    // A regeneration: the whole prompt but its last token comes from the cache.
    expect(again.text).toBe(first.text);
    expect(again.cachedTokens).toBe(again.promptTokens - 1);
    // A reply the consumer left after 3 tokens (a stop string): the cache holds what was read.
    const cut = await ask(cached, [...base, assistant(first.text), user('Go on.')], {}, 3);
    expect(cut.reason).toBe('left');
    for (const messages of [
      [...base, assistant(first.text), user('Go on.')],
      [...base, assistant(first.text), user('Something else entirely.')],
      [...base, assistant('An edited reply.'), user('Go on.')],
      [{ role: 'system' as const, content: 'Branches.' }, user('A different first question.')],
    ]) {
      const on = await ask(cached, messages);
      const off = await ask(uncached, messages);
      expect(on.text).toBe(off.text);
      expect(on.cachedTokens).toBeGreaterThan(0);
    }
  });
});
