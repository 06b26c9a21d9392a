/**
 * TEST DOUBLE. A scripted engine for protocol-level tests only: it "generates" a fixed word
 * sequence and hashes text into vectors. The real engines (transformers.js, web-llm) implement the
 * same interface and run the same conformance suite.
 */
import type { ChatEvent, ChatRequest, EmbedRequest, EmbedResult, Engine, ModelInfo } from '../../src/core/engine.ts';
import { GatewayError } from '../../src/core/errors.ts';

export const SCRIPTED_MODELS: readonly ModelInfo[] = [
  { id: 'scripted-chat', kind: 'chat', engine: 'scripted', displayName: 'Scripted chat (test double)', created: 1_763_000_000, contextWindow: 512, maxOutputTokens: 256 },
  { id: 'scripted-embed', kind: 'embedding', engine: 'scripted', created: 1_763_000_000, contextWindow: 128, dimensions: 16, supportsDimensions: true },
  { id: 'scripted-embed-fixed', kind: 'embedding', engine: 'scripted', created: 1_763_000_000, contextWindow: 128, dimensions: 8 },
];

const SCRIPT = 'the quick brown fox jumps over the lazy dog while seven small birds sing about rivers and bright stars'.split(' ');

export interface ScriptedEngineOptions {
  /** Delay before each token, to make streams observable over time. */
  readonly tokenDelayMs?: number;
  /** Natural answer length in tokens (then `end: stop`). */
  readonly answerTokens?: number;
}

export class ScriptedEngine implements Engine {
  /** Every chat call, with whether its signal was aborted by the time it finished. */
  readonly chatCalls: { request: ChatRequest; aborted: boolean; tokens: number }[] = [];
  readonly embedCalls: EmbedRequest[] = [];
  readonly #options: ScriptedEngineOptions;

  constructor(options: ScriptedEngineOptions = {}) {
    this.#options = options;
  }

  async listModels(): Promise<readonly ModelInfo[]> {
    return SCRIPTED_MODELS;
  }

  async *chat(request: ChatRequest, { signal }: { signal: AbortSignal }): AsyncGenerator<ChatEvent> {
    const model = SCRIPTED_MODELS.find((m) => m.id === request.model && m.kind === 'chat');
    if (!model) throw new GatewayError('model_not_found', `no chat model ${request.model}`);
    const call = { request, aborted: false, tokens: 0 };
    this.chatCalls.push(call);
    const promptTokens = request.messages.reduce((n, m) => n + 3 + countWords(m.content), 0);
    if (promptTokens >= model.contextWindow) throw new GatewayError('context_length_exceeded', 'prompt too long', { param: 'messages' });
    try {
      yield { type: 'start', promptTokens };
      const seedWord = countWords(request.messages.at(-1)?.content ?? '') % SCRIPT.length;
      const natural = this.#options.answerTokens ?? 12;
      for (let i = 0; i < Math.min(natural, request.maxTokens); i++) {
        if (this.#options.tokenDelayMs) await sleep(this.#options.tokenDelayMs, signal);
        if (signal.aborted) return;
        call.tokens++;
        yield { type: 'token', text: `${i === 0 ? '' : ' '}${SCRIPT[(seedWord + i) % SCRIPT.length]}` };
      }
      yield { type: 'end', reason: natural > request.maxTokens ? 'length' : 'stop' };
    } finally {
      call.aborted = signal.aborted;
    }
  }

  async embed(request: EmbedRequest): Promise<EmbedResult> {
    const model = SCRIPTED_MODELS.find((m) => m.id === request.model && m.kind === 'embedding');
    if (!model?.dimensions) throw new GatewayError('model_not_found', `no embedding model ${request.model}`);
    this.embedCalls.push(request);
    return {
      embeddings: request.input.map((text) => hashVector(text, model.dimensions!)),
      promptTokens: request.input.reduce((n, text) => n + countWords(text) + 2, 0),
      inputTokens: request.input.map((text) => countWords(text) + 2),
    };
  }
}

function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function hashVector(text: string, dimensions: number): Float32Array {
  const out = new Float32Array(dimensions);
  let h = 2166136261;
  for (let i = 0; i < dimensions * 4; i++) {
    h = Math.imul(h ^ (text.charCodeAt(i % Math.max(1, text.length)) + i), 16777619) >>> 0;
    out[i % dimensions]! += (h / 2 ** 32) - 0.5;
  }
  const norm = Math.hypot(...out);
  return out.map((v) => v / norm);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
