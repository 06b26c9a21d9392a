/**
 * The browser's built-in model (the Prompt API's `LanguageModel`) as an engine adapter. The model
 * runs in the browser itself, reached through the page that hosts the engine worker
 * (`BuiltinModelBackend`); the model host queues its requests and the gateway cuts stop sequences,
 * caps tokens and parses tool calls, as for every engine.
 * @module
 */
import type { CallOptions, ChatEvent, ChatRequest, LocalFacts, ModelInfo } from '../../core/engine.ts';
import { GatewayError } from '../../core/errors.ts';
import type { BuiltinModelBackend } from '../../contracts/builtin-model.ts';
import type { EngineAdapter } from '../hosting/adapter.ts';
import { toBuiltinPrompt } from './builtin-prompt.ts';
import { ToolAnswerStream } from './tool-answer-stream.ts';
import { usesTools } from './tool-schema.ts';

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
    // The browser keeps its model: loading it must not unload one of the app's.
    holdsNoMemory: true,
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
 * answer is given on as the Hermes text as it streams (`ToolAnswerStream`), one event a piece;
 * each event waits for the next piece, so that what is owed at the end joins the last one.
 */
async function* chat(backend: BuiltinModelBackend, request: ChatRequest, { signal }: CallOptions): AsyncGenerator<ChatEvent> {
  // Its models do not declare `logitBias`, so the gateway refuses it first; this is for other callers.
  if (request.logitBias?.size) throw new GatewayError('invalid_request', "logit_bias is not supported by the browser's built-in model: the Prompt API has no token ids.", { param: 'logit_bias' });
  const tools = usesTools(request) ? new ToolAnswerStream() : undefined;
  let held: string | undefined;
  for await (const event of backend.prompt(toBuiltinPrompt(request), signal)) {
    if (event.type === 'usage') yield { type: 'start', promptTokens: event.promptTokens };
    else if (!tools) yield { type: 'token', text: event.text };
    else {
      if (held !== undefined) yield { type: 'token', text: held };
      held = tools.push(event.text);
    }
  }
  if (tools) {
    const owed = (held ?? '') + tools.end();
    if (held !== undefined || owed) yield { type: 'token', text: owed };
  }
}
