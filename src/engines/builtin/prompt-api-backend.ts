/**
 * The built-in model's backend over the Prompt API itself: runs in the page that hosts the engine
 * worker, the only place `LanguageModel` exists (it is exposed on `window`, not in workers). One
 * session per request, created from the conversation and destroyed when the answer ends or its
 * caller goes.
 * @module
 */
import { abortedError, GatewayError } from '../../core/errors.ts';
import type { BuiltinAvailability, BuiltinEvent, BuiltinModelBackend, BuiltinPrompt } from '../../contracts/builtin-model.ts';
import type { LanguageModelCreateOptions, LanguageModelSession, LanguageModelStatic } from './prompt-api.ts';

/** What the sessions are told to expect: text in and out (Chrome asks for languages, English is the default one). */
const TEXT: LanguageModelCreateOptions = { expectedInputs: [{ type: 'text', languages: ['en'] }], expectedOutputs: [{ type: 'text', languages: ['en'] }] };

export const NO_PROMPT_API = "This browser has no built-in language model (the Prompt API's `LanguageModel` is missing: it ships in Chrome 148 and later and in Edge, on supported devices).";

/** `api` is read at each call, so a page (or a test) may install it after the engine starts. */
export function createPromptApiBackend(api: () => LanguageModelStatic | undefined): BuiltinModelBackend {
  const present = (): LanguageModelStatic => {
    const lm = api();
    if (!lm) throw new GatewayError('model_unavailable', NO_PROMPT_API);
    return lm;
  };
  return {
    async availability(): Promise<BuiltinAvailability> {
      const lm = api();
      if (!lm) return { state: 'unavailable', reason: NO_PROMPT_API };
      const state = await lm.availability(TEXT).catch(() => 'unavailable' as const);
      return state === 'unavailable' ? { state, reason: 'The browser has the Prompt API but its built-in model cannot run on this device (LanguageModel.availability() says "unavailable": an unsupported device, a browser without the model, or the model turned off).' } : { state };
    },
    async prepare(onProgress) {
      const lm = present();
      // Creating a session is what downloads the model; a download needs a user gesture in the page.
      const session = await lm.create({ ...TEXT, monitor: (m) => m.addEventListener('downloadprogress', (e) => onProgress((e as Event & { loaded: number }).loaded)) }).catch((error: unknown) => {
        throw failure(error, 'could not be made ready');
      });
      session.destroy();
    },
    prompt: (prompt, signal) => run(present(), prompt, signal),
  };
}

async function* run(lm: LanguageModelStatic, prompt: BuiltinPrompt, signal: AbortSignal): AsyncGenerator<BuiltinEvent> {
  const sampling = await samplingOf(lm, prompt);
  let session: LanguageModelSession;
  try {
    session = await lm.create({ ...TEXT, ...sampling, initialPrompts: prompt.initialPrompts, signal });
  } catch (error) {
    throw failure(error, 'could not start a session', signal);
  }
  const destroy = () => session.destroy();
  signal.addEventListener('abort', destroy, { once: true });
  try {
    const options = { ...(prompt.responseConstraint ? { responseConstraint: prompt.responseConstraint } : {}), signal };
    const input = prompt.input.length === 1 && prompt.input[0]!.role === 'user' ? prompt.input[0]!.content : prompt.input;
    yield await usage(session, input, options);
    const reader = session.promptStreaming(input, options).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        if (value) yield { type: 'text', text: value };
      }
    } finally {
      reader.releaseLock();
    }
  } catch (error) {
    throw failure(error, 'failed', signal);
  } finally {
    signal.removeEventListener('abort', destroy);
    destroy();
  }
}

/**
 * The prompt's tokens: the session's own count of its initial prompts plus the input's measured
 * cost where the browser measures (the count then includes the API's turn markers); else a
 * length-based estimate. Checked against the quota here, so that a prompt too long is a 400 before
 * anything streams.
 */
async function usage(session: LanguageModelSession, input: Parameters<LanguageModelSession['prompt']>[0], options: object): Promise<BuiltinEvent> {
  const measured = session.measureInputUsage ? await session.measureInputUsage(input, options) : undefined;
  const before = session.inputUsage ?? 0;
  const promptTokens = measured !== undefined ? before + measured : estimate(input) + (session.inputUsage ?? 0);
  const quota = session.inputQuota;
  if (quota !== undefined && Number.isFinite(quota) && promptTokens > quota) {
    throw new GatewayError('context_length_exceeded', `The prompt takes ${promptTokens} tokens; the built-in model takes at most ${quota} (its inputQuota).`, { param: 'messages' });
  }
  return { type: 'usage', promptTokens, estimated: measured === undefined };
}

/** About four characters a token, as for English text. */
function estimate(input: string | readonly { content: string }[]): number {
  const text = typeof input === 'string' ? input : input.map((m) => m.content).join('\n');
  return Math.ceil(text.length / 4);
}

/** Temperature and top-K where the page may set them (both or neither, within the browser's limits). */
async function samplingOf(lm: LanguageModelStatic, prompt: BuiltinPrompt): Promise<{ temperature?: number; topK?: number }> {
  if (prompt.temperature === undefined && prompt.topK === undefined) return {};
  const params = await lm.params?.().catch(() => null);
  if (!params) return {};
  return {
    temperature: Math.min(prompt.temperature ?? params.defaultTemperature, params.maxTemperature),
    topK: Math.max(1, Math.min(prompt.topK ?? params.defaultTopK, params.maxTopK)),
  };
}

/** The API's DOMExceptions as the gateway's errors. */
function failure(error: unknown, doing: string, signal?: AbortSignal): GatewayError {
  if (error instanceof GatewayError) return error;
  if (signal?.aborted) return abortedError('while the built-in model was answering');
  const { name, message } = (error ?? {}) as { name?: string; message?: string };
  const detail = message ? `: ${message}` : '';
  switch (name) {
    case 'QuotaExceededError':
      return new GatewayError('context_length_exceeded', `The prompt is longer than the built-in model takes (QuotaExceededError${detail}).`, { param: 'messages' });
    case 'NotAllowedError':
      return new GatewayError('model_unavailable', `The browser did not allow its built-in model here (NotAllowedError${detail}): a download needs a user gesture in the page, and some browsers allow it only in top-level windows.`);
    case 'NotSupportedError':
      return new GatewayError('invalid_request', `The built-in model cannot do what was asked (NotSupportedError${detail}).`);
    case 'AbortError':
      return abortedError('while the built-in model was answering');
    default:
      return new GatewayError('model_unavailable', `The built-in model ${doing} (${name ?? 'Error'}${detail}).`);
  }
}
