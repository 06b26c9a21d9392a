/**
 * The browser's built-in model (the Prompt API's `LanguageModel`) as an engine adapter. The model
 * runs in the browser itself, reached through the page that hosts the engine worker
 * (`BuiltinModelBackend`); the model host queues its requests and the gateway cuts stop sequences,
 * caps tokens and parses tool calls, as for every engine.
 * @module
 */
import type { CallOptions, ChatEvent, ChatRequest, ModelInfo } from '../../core/engine.ts';
import { GatewayError } from '../../core/errors.ts';
import type { BuiltinModelBackend } from '../../contracts/builtin-model.ts';
import type { EngineAdapter, LocalFacts } from '../adapter.ts';
import { toBuiltinPrompt } from './builtin-prompt.ts';
import { toolAnswerText, usesTools } from './tool-schema.ts';

export interface BuiltinAdapterOptions {
  readonly models: readonly ModelInfo[];
  /** The host page's Prompt API; absent where the worker was started without one (an app's own host). */
  readonly backend?: BuiltinModelBackend;
}

const NO_LINK = 'The engine worker has no link to a host page, where the Prompt API lives (it was started outside startInference).';

export function createBuiltinAdapter(options: BuiltinAdapterOptions): EngineAdapter {
  const { backend } = options;
  const linked = (): BuiltinModelBackend => {
    if (!backend) throw new GatewayError('model_unavailable', NO_LINK);
    return backend;
  };
  return {
    models: options.models.map((info) => ({ ...info, structuredOutput: true, toolCalling: true })),
    async load(model, { onProgress } = {}) {
      const started = performance.now();
      const { state, reason } = await linked().availability();
      if (state === 'unavailable') throw new GatewayError('model_unavailable', reason ?? 'The browser has no built-in model here.');
      onProgress?.({ status: 'initiate', model });
      // The browser's own download, as the product's progress events: one "file", the model, in fractions.
      await linked().prepare((loaded) => onProgress?.({ status: 'progress', model, file: 'browser built-in model', loaded, total: 1 }));
      onProgress?.({ status: 'ready', model, device: 'browser', ms: Math.round(performance.now() - started) });
    },
    async unload() {
      // Nothing is held between requests: each has a session of its own, destroyed at its end.
    },
    chat: (request, callOptions) => chat(linked(), request, callOptions),
    embed() {
      return Promise.reject(new GatewayError('invalid_request', 'The built-in model is a chat model.', { param: 'model' }));
    },
    async localFacts() {
      const { state, reason } = backend ? await backend.availability() : { state: 'unavailable' as const, reason: NO_LINK };
      const facts: LocalFacts = {
        downloaded: state === 'available',
        bytesOnDisk: 0,
        runnable: state !== 'unavailable',
        requires: ['prompt-api'],
        ...(state === 'unavailable' ? { reason } : { backendReason: BACKEND_REASON[state] }),
      };
      return new Map(options.models.map((info) => [info.id, facts]));
    },
  };
}

const BACKEND_REASON = {
  available: "the browser's built-in model (Prompt API): ready",
  downloadable: "the browser's built-in model (Prompt API): the browser downloads it on first use (a user gesture in the page starts it)",
  downloading: "the browser's built-in model (Prompt API): the browser is downloading it",
} as const;

/**
 * One answer. Each piece the browser streams counts as one token (the API counts no output
 * tokens), so `max_tokens` and `completion_tokens` are in those pieces. With tools, the JSON
 * answer is gathered whole and given on as the Hermes text, in as many pieces as it came in.
 */
async function* chat(backend: BuiltinModelBackend, request: ChatRequest, { signal }: CallOptions): AsyncGenerator<ChatEvent> {
  const tools = usesTools(request);
  const gathered: string[] = [];
  for await (const event of backend.prompt(toBuiltinPrompt(request), signal)) {
    if (event.type === 'usage') yield { type: 'start', promptTokens: event.promptTokens };
    else if (tools) gathered.push(event.text);
    else yield { type: 'token', text: event.text };
  }
  if (tools) for (const text of pieces(toolAnswerText(gathered.join('')), gathered.length)) yield { type: 'token', text };
}

/** `text` cut into `count` pieces of about the same length (at least one). */
function pieces(text: string, count: number): string[] {
  const chars = [...text];
  const n = Math.max(1, Math.min(count, chars.length));
  const size = Math.ceil(chars.length / n);
  return Array.from({ length: Math.ceil(chars.length / size) || 1 }, (_, i) => chars.slice(i * size, (i + 1) * size).join(''));
}
