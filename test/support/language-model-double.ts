/**
 * TEST DOUBLE for the Prompt API's `LanguageModel`, written from the published IDL and explainer
 * (webmachinelearning/prompt-api) and Chrome's "Prompt API" documentation. The real API runs only
 * in Chrome and Edge on supported devices, never in the headless browsers or in Node here, so
 * this plays it:
 * - `availability()` answers the configured state; `create()` on `downloadable`/`downloading`
 *   calls `monitor` and fires `downloadprogress` events (`loaded` 0, 0.5, 1) before resolving, and
 *   the model is `available` afterwards;
 * - a session holds its `initialPrompts` (a system message only first), counts tokens as a
 *   quarter of the characters plus 4 per message (the API's turn markers), reports `inputUsage`,
 *   `inputQuota` and `measureInputUsage()`, and rejects input over the quota with a
 *   `QuotaExceededError` DOMException carrying `requested` and `quota`;
 * - `promptStreaming()` streams deltas (one word and its space a chunk, 6 characters of JSON a
 *   chunk), `chunkMs` apart; with a
 *   `responseConstraint` it answers a value of the schema (the first branch of an `anyOf`, the
 *   first of an `enum`); `signal` and `destroy()` end the stream with an `AbortError`;
 * - temperature and top-K are taken only together and only where `params` is configured.
 * Each session is recorded (its options, its prompts, whether it was destroyed) for assertions.
 * Self-contained (no imports), so a test page can install it on `window` before startInference.
 */

export type DoubleAvailability = 'unavailable' | 'downloadable' | 'downloading' | 'available';

export interface LanguageModelDoubleConfig {
  availability?: DoubleAvailability;
  /** Tokens a session takes (default 1024). */
  inputQuota?: number;
  /** Between streamed chunks (default 0). */
  chunkMs?: number;
  /** The answer to an unconstrained prompt (default: echoes the last user text). */
  reply?: (input: string) => string;
  /** `LanguageModel.params()`'s answer; absent: the method is absent, as for web pages in Chrome. */
  params?: { defaultTopK: number; maxTopK: number; defaultTemperature: number; maxTemperature: number };
  /** false: sessions have no `measureInputUsage` (older builds). Default true. */
  measures?: boolean;
}

export interface SessionRecord {
  readonly options: Record<string, unknown>;
  readonly prompts: { input: unknown; responseConstraint?: unknown }[];
  destroyed: boolean;
}

interface Message {
  role: string;
  content: string;
  prefix?: boolean;
}

export function createLanguageModelDouble(config: LanguageModelDoubleConfig = {}) {
  const sessions: SessionRecord[] = [];
  const quota = config.inputQuota ?? 1024;
  const chunkMs = config.chunkMs ?? 0;
  const state = { availability: config.availability ?? 'available' };
  const abortError = () => new DOMException('The operation was aborted.', 'AbortError');
  const tokens = (input: unknown): number => {
    const messages: Message[] = typeof input === 'string' ? [{ role: 'user', content: input }] : (input as Message[]);
    return messages.reduce((sum, m) => sum + Math.ceil(String(m.content).length / 4) + 4, 0);
  };
  const quotaError = (requested: number) => Object.assign(new DOMException(`The input is too large (${requested} tokens, quota ${quota}).`, 'QuotaExceededError'), { requested, quota });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  class Session {
    readonly #record: SessionRecord;
    inputUsage: number;
    readonly inputQuota = quota;
    readonly #destroyed = new AbortController();

    constructor(record: SessionRecord, usage: number) {
      this.#record = record;
      this.inputUsage = usage;
    }

    async measureInputUsage(input: unknown): Promise<number> {
      return tokens(input);
    }

    destroy(): void {
      this.#record.destroyed = true;
      this.#destroyed.abort();
    }

    async prompt(input: unknown, options: { responseConstraint?: unknown; signal?: AbortSignal } = {}): Promise<string> {
      let out = '';
      const reader = this.promptStreaming(input, options).getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) out += r.value;
      return out;
    }

    promptStreaming(input: unknown, options: { responseConstraint?: unknown; signal?: AbortSignal } = {}): ReadableStream<string> {
      if (this.#record.destroyed) throw new DOMException('The session was destroyed.', 'InvalidStateError');
      if (options.responseConstraint !== undefined && (typeof options.responseConstraint !== 'object' || options.responseConstraint === null)) throw new TypeError('responseConstraint must be a JSON schema object or a RegExp.');
      this.#record.prompts.push({ input, responseConstraint: options.responseConstraint });
      const requested = this.inputUsage + tokens(input);
      const messages: Message[] = typeof input === 'string' ? [{ role: 'user', content: input }] : (input as Message[]);
      const lastUser = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
      const prefix = messages.at(-1)?.prefix ? messages.at(-1)!.content : '';
      const text = options.responseConstraint ? JSON.stringify(exampleOf(options.responseConstraint)) : (config.reply ?? ((t: string) => `You said: ${t}`))(lastUser).slice(prefix.length);
      // Words and their space; JSON (which has no spaces) in pieces of 6 characters.
      const chunks = options.responseConstraint ? (text.match(/[\s\S]{1,6}/g) ?? []) : text.match(/\S*\s*/g)!.filter(Boolean);
      const signals = [this.#destroyed.signal, ...(options.signal ? [options.signal] : [])];
      let i = 0;
      return new ReadableStream<string>({
        start: (controller) => {
          if (requested > quota) controller.error(quotaError(requested));
          else this.inputUsage = requested;
        },
        pull: async (controller) => {
          if (chunkMs) await sleep(chunkMs);
          if (signals.some((s) => s.aborted)) return controller.error(abortError());
          if (i < chunks.length) controller.enqueue(chunks[i++]!);
          else controller.close();
        },
      });
    }
  }

  const LanguageModel = {
    async availability(): Promise<DoubleAvailability> {
      return state.availability;
    },
    async create(options: Record<string, unknown> & { initialPrompts?: Message[]; monitor?: (m: EventTarget) => void; signal?: AbortSignal; temperature?: number; topK?: number } = {}): Promise<Session> {
      if (options.signal?.aborted) throw abortError();
      if (state.availability === 'unavailable') throw new DOMException('The built-in model is not available on this device.', 'NotSupportedError');
      if ((options.temperature === undefined) !== (options.topK === undefined)) throw new DOMException('temperature and topK must be given together.', 'NotSupportedError');
      if (options.temperature !== undefined && !config.params) throw new DOMException('Sampling parameters are not allowed here.', 'NotSupportedError');
      const prompts = options.initialPrompts ?? [];
      if (prompts.some((m, i) => m.role === 'system' && i > 0)) throw new TypeError('A system prompt must come first.');
      const monitor = new EventTarget();
      options.monitor?.(monitor);
      if (state.availability !== 'available') {
        state.availability = 'downloading';
        for (const loaded of [0, 0.5, 1]) {
          await sleep(5);
          monitor.dispatchEvent(Object.assign(new Event('downloadprogress'), { loaded, total: 1 }));
        }
        state.availability = 'available';
      }
      const usage = tokens(prompts);
      if (usage > quota) throw quotaError(usage);
      const record: SessionRecord = { options: { ...options }, prompts: [], destroyed: false };
      sessions.push(record);
      return new Session(record, usage);
    },
    ...(config.params ? { params: async () => config.params } : {}),
  };
  if (config.measures === false) delete (Session.prototype as Partial<Session>).measureInputUsage;
  return { LanguageModel, sessions, state };
}

/** A value the schema allows: what a model constrained by it could answer. */
function exampleOf(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return {};
  const s = schema as Record<string, unknown>;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const branches = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(branches)) return exampleOf(branches[0]);
  switch (Array.isArray(s.type) ? s.type[0] : s.type) {
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      const keys = Object.keys(properties);
      return Object.fromEntries(keys.map((key) => [key, exampleOf(properties[key])]));
    }
    case 'array':
      return Array.from({ length: Math.max(1, Number(s.minItems ?? 1)) }, () => exampleOf(s.items));
    case 'string':
      return 'Paris'.slice(0, Number(s.maxLength ?? 5));
    case 'integer':
    case 'number':
      return Math.min(Math.max(21, Number(s.minimum ?? -Infinity)), Number(s.maximum ?? Infinity));
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return {};
  }
}
