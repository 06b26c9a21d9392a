/**
 * TEST DOUBLE for web-llm's MLCEngine. The real engine needs WebGPU and a compiled model library
 * (.wasm) that cannot be obtained here, so this double streams chunks shaped like MLCEngine's
 * (delta chunks, then a final chunk with `finish_reason`, then the usage chunk), and counts the
 * way web-llm does:
 * - the exact prompt count appears only in the final usage chunk, and in the pipeline's
 *   `getCurRoundPrefillTotalTokens()` from the end of prefill on (reset at the next prefill);
 * - `completion_tokens` counts every step, the stop token's included, in 0.2.86, and one fewer
 *   (decode steps only, not the token that came out of prefill) in 0.2.79;
 * - a step whose text ends in half a UTF-8 character streams no chunk.
 * It checks the engine-wide interrupt flag before every decode step, honours `max_tokens`, and
 * runs a `finally` when closed, as web-llm's generator does to release its per-model lock.
 *
 * It keeps its last conversation as web-llm (0.2.86) does, and reuses it by web-llm's rule
 * (`preparePrefillInput`): a request whose messages before the last equal that conversation (the
 * previous request's messages plus the reply as recorded), when that reply ended neither on `abort`
 * nor on `length`, prefills only its last message; anything else starts afresh. The reply is
 * recorded as web-llm records it: cut before the stop string it found, or as far as it got when
 * interrupted or closed early (then with finish `abort`). Its KV cache holds every prefilled token
 * and every generated one but the last sampled (never fed back); `rounds` tells, per generation,
 * whether it reused and how many tokens it kept, an account apart from the adapter's own.
 *
 * Stop strings (`stop`) are checked as web-llm checks them: after each step, on the decoded text
 * of every token so far, each string in turn by its last occurrence; the message is cut before it,
 * and deltas are streamed as web-llm slices them (from the length of the message last streamed), so
 * the step that completes a stop string streams at most the text before it. The pipeline's output
 * token ids, tokenizer and message are there to be read, as in web-llm.
 * A `grammar` response format is checked as web-llm checks it; given xgrammar (`grammar` in the
 * config), the scripted output is also matched against it character by character, and a step the
 * grammar does not allow fails the generation as web-llm's matcher does, so a script cannot pass
 * off output that web-llm would never have produced.
 */
import type { XGrammar } from '../../src/engines/grammar/xgrammar.ts';
import type { MLCEngineLike, MLCEngineOptions, WebLLMChatRequest, WebLLMChunk, WebLLMMessage } from '../../src/engines/webllm/mlc-engine-like.ts';

export interface WebLLMScript {
  /**
   * One entry per step, the first from prefill: the content delta it streams, '' for the stop
   * token's step (as web-llm streams it), `null` for a step that streams no chunk.
   */
  readonly steps: readonly (string | null)[];
  /** Why web-llm ends when every step has run (a `max_tokens` cap that comes first makes it `length`). */
  readonly finish: 'stop' | 'length';
  /**
   * What web-llm's tokenizer makes of the prompt it prefills this round. Default: the double's own
   * count (`doublePromptTokens`) of the whole conversation, or of its last message alone when the
   * double reuses its kept conversation.
   */
  readonly promptTokens?: number;
  /** Thrown by the prefill step, before any chunk. */
  readonly prefillError?: Error;
  /** Thrown in place of the step at this index (e.g. the GPU device lost midway). */
  readonly failAt?: { readonly step: number; readonly error: Error };
}

export interface WebLLMDoubleConfig {
  /** Which web-llm's usage counts to copy. Default 0.2.86. */
  readonly version?: '0.2.79' | '0.2.86';
  /** False plays a web-llm without the internal prefill count (see pipeline-internals.ts). Default true. */
  readonly prefillStats?: boolean;
  /** The answer when no script is queued. Default: `defaultScript`. */
  readonly answer?: (request: WebLLMChatRequest) => WebLLMScript;
  /** Matches scripted output against a request's grammar (see the top of this file). */
  readonly grammar?: XGrammar;
}

/**
 * The internal pipeline object web-llm keeps per loaded model; played: its prefill count, its
 * vocabulary size, the output token ids of the current reply, its tokenizer's `decode`, and the
 * message it records.
 */
class PipelineDouble {
  curRoundPrefillTotalTokens = 0;
  /** Logits per step (Qwen2.5's), read by pipeline-internals.ts. */
  readonly fullVocabSize = 151_936;
  outputIds: number[] = [];
  outputMessage = '';
  /** The double's vocabulary: each step's text gets its own id. */
  readonly #texts: string[] = [];
  readonly tokenizer = { decode: (ids: Int32Array) => Array.from(ids, (id) => this.#texts[id] ?? '').join('') };

  getCurRoundPrefillTotalTokens(): number {
    return this.curRoundPrefillTotalTokens;
  }

  getMessage(): string {
    return this.outputMessage;
  }

  /** The id of a step's text. */
  idOf(text: string): number {
    return this.#texts.push(text) - 1;
  }
}

/** One generation as the double ran it: what it reused and prefilled. */
export interface DoubleRound {
  /** Whether it continued its kept conversation. */
  readonly reused: boolean;
  /** The tokens it read again from its KV cache (0 when it started afresh). */
  readonly kept: number;
  /** The tokens it prefilled. */
  readonly prefilled: number;
}

/** Equal conversations, as web-llm compares them: role and text of each message. */
const sameMessages = (a: readonly WebLLMMessage[], b: readonly WebLLMMessage[]) => a.length === b.length && a.every((m, i) => m.role === b[i]!.role && m.content === b[i]!.content);

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu'];

/**
 * The double's own "tokenizer": four template tokens per message plus one per three characters,
 * and three for the assistant header. Deliberately far from characters ÷ 4, so that an estimate
 * passed off as the count shows.
 */
export function doublePromptTokens(messages: readonly WebLLMMessage[]): number {
  return 3 + messages.reduce((sum, m) => sum + 4 + Math.ceil(m.content.length / 3), 0);
}

/** Twelve words, chosen by the prompt's length, then the stop token. */
export function defaultScript(request: WebLLMChatRequest): WebLLMScript {
  const seed = doublePromptTokens(request.messages);
  const steps = Array.from({ length: 12 }, (_, i) => ` ${WORDS[(seed + i * 5) % WORDS.length]}`);
  return { steps: [...steps, ''], finish: 'stop' };
}

/** A reply written out step by step (one token each), then the stop token. */
export function replyScript(tokens: readonly string[], promptTokens = 20): WebLLMScript {
  return { steps: [...tokens, ''], finish: 'stop', promptTokens };
}

/**
 * The double's grammar vocabulary: one token per printable ASCII character, tab and newline, then
 * the stop token. Enough for scripted replies; any other character is refused.
 */
const CHARS = ['\t', '\n', ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i))];
const STOP_ID = CHARS.length;

/** One step at a time, as web-llm's matcher sees the tokens of a constrained reply. */
async function grammarMatcher(xgrammar: XGrammar, ebnf: string): Promise<{ accepts(text: string | 'stop'): boolean; dispose(): void }> {
  const info = await xgrammar.TokenizerInfo.createTokenizerInfo([...CHARS, '</s>'], 'raw', false, STOP_ID + 1, [STOP_ID]);
  const compiler = await xgrammar.GrammarCompiler.createGrammarCompiler(info);
  // web-llm compiles a `grammar` response format from its rule named `root`.
  const compiled = await compiler.compileGrammar(ebnf, 'root');
  const matcher = await xgrammar.GrammarMatcher.createGrammarMatcher(compiled);
  return {
    accepts(text) {
      if (text === 'stop') return matcher.acceptToken(STOP_ID) && matcher.isTerminated();
      for (const char of text) {
        const id = CHARS.indexOf(char);
        if (id < 0) throw new Error(`The web-llm test double has no token for ${JSON.stringify(char)}.`);
        if (!matcher.acceptToken(id)) return false;
      }
      return true;
    },
    dispose() {
      for (const handle of [matcher, compiled, compiler, info]) handle.dispose();
    },
  };
}

/** The tokens the double's embedding model counts for a text: one per word, plus its two special tokens. */
export function doubleEmbedTokens(text: string): number {
  return text.split(/\s+/).filter(Boolean).length + 2;
}

/** The double's raw vector for a text embedded with `padding` pad tokens after it (0: alone). */
export function doubleEmbedding(text: string, padding = 0): number[] {
  return [text.length + padding * 0.5, (text.match(/[aeiou]/g) ?? []).length, doubleEmbedTokens(text), 1];
}

export class TestDoubleMLCEngine implements MLCEngineLike {
  readonly reloads: string[] = [];
  readonly requests: WebLLMChatRequest[] = [];
  /** The prompt count of each generation, once prefilled: what web-llm would report for it. */
  readonly prefilled: number[] = [];
  /** Each generation's reuse, once prefilled. */
  readonly rounds: DoubleRound[] = [];
  readonly embedInputs: string[][] = [];
  unloads = 0;
  interrupts = 0;
  /** Generations whose `finally` ran (web-llm releases its lock there). */
  released = 0;
  reloadError?: Error;
  /** Awaited before each step (prefill is step 0), so tests can hold a generation mid-way. */
  gate?: (step: number) => Promise<void>;
  scripts: WebLLMScript[] = [];
  readonly options: MLCEngineOptions;
  readonly config: WebLLMDoubleConfig;
  /** web-llm's private map of loaded models to pipelines, read by pipeline-internals.ts. */
  readonly loadedModelIdToPipeline?: Map<string, PipelineDouble>;
  #interrupt = false;
  #loaded: string | undefined;
  /** The conversation it keeps (the last request's messages and its recorded reply), with how that reply ended. */
  #conversation: { readonly messages: readonly WebLLMMessage[]; readonly finish: string } | undefined;
  /** Tokens in its KV cache. */
  #filled = 0;

  constructor(options: MLCEngineOptions, config: WebLLMDoubleConfig = {}) {
    this.options = options;
    this.config = config;
    if (config.prefillStats !== false) this.loadedModelIdToPipeline = new Map();
  }

  async reload(modelId: string): Promise<void> {
    this.reloads.push(modelId);
    const report = this.options.initProgressCallback;
    report({ progress: 0, timeElapsed: 0, text: 'Start to fetch params' });
    report({ progress: 0.5, timeElapsed: 1, text: 'Fetching param cache[1/2]: 150MB fetched. 50% completed, 1 secs elapsed. It can take a while when we first visit this page to populate the cache. Later refreshes will become faster.' });
    if (this.reloadError) throw this.reloadError;
    report({ progress: 1, timeElapsed: 2, text: 'Loading model from cache[2/2]: 300MB loaded. 100% completed, 2 secs elapsed.' });
    report({ progress: 1, timeElapsed: 3, text: 'Loading GPU shader modules[40/40]: 100% completed, 3 secs elapsed.' });
    report({ progress: 1, timeElapsed: 3.2, text: 'Finish loading on WebGPU - Test Double GPU' });
    this.loadedModelIdToPipeline?.clear();
    this.loadedModelIdToPipeline?.set(modelId, new PipelineDouble());
    this.#loaded = modelId;
    this.#conversation = undefined;
    this.#filled = 0;
  }

  async unload(): Promise<void> {
    this.unloads++;
    this.loadedModelIdToPipeline?.clear();
    this.#loaded = undefined;
    this.#conversation = undefined;
    this.#filled = 0;
  }

  async interruptGenerate(): Promise<void> {
    this.interrupts++;
    this.#interrupt = true;
  }

  readonly chat = {
    completions: {
      create: async (request: WebLLMChatRequest): Promise<AsyncIterable<WebLLMChunk>> => {
        this.requests.push(request);
        if (this.#loaded === undefined) throw new Error('no model loaded');
        // web-llm's own check (postInitAndCheckFields): a grammar, and only with type `grammar`.
        const format = request.response_format as { type?: string; grammar?: string } | undefined;
        if (format && (format.type === 'grammar') !== (typeof format.grammar === 'string')) {
          throw Object.assign(new Error('When ResponseFormat.type is `grammar`, ResponseFormat.grammar needs to be specified.'), { name: 'InvalidResponseFormatGrammarError' });
        }
        const script = this.scripts.shift() ?? (this.config.answer ?? defaultScript)(request);
        return this.#generate(script, request);
      },
    },
  };

  /**
   * As web-llm's embedding pipeline: a batch is right-padded to its longest member, and a padded
   * member's vector differs from the same text embedded alone; usage counts the tokens without
   * the padding. Vectors are raw (web-llm does not normalise them).
   */
  readonly embeddings = {
    create: async ({ input }: { input: string[] }) => {
      this.embedInputs.push(input);
      const tokens = input.map(doubleEmbedTokens);
      const longest = Math.max(...tokens);
      return {
        data: input.map((text, index) => ({ index, embedding: doubleEmbedding(text, longest - tokens[index]!) })),
        usage: { prompt_tokens: tokens.reduce((a, b) => a + b, 0) },
      };
    },
  };

  async *#generate(script: WebLLMScript, request: WebLLMChatRequest): AsyncGenerator<WebLLMChunk> {
    this.#interrupt = false;
    // Without the internals played, a pipeline of its own all the same: the double still keeps its conversation.
    const pipeline = this.loadedModelIdToPipeline?.get(this.#loaded as string) ?? new PipelineDouble();
    let grammar: Awaited<ReturnType<typeof grammarMatcher>> | undefined;
    /** web-llm's `stopTriggered`, and its finish reason once set. */
    let finish: string | undefined;
    let prefilled = false;
    const stops = request.stop ?? [];
    const record = (reason: string) => {
      finish = reason;
      this.#conversation = { messages: [...request.messages, { role: 'assistant', content: pipeline.outputMessage }], finish: reason };
    };
    try {
      pipeline.curRoundPrefillTotalTokens = 0;
      await this.gate?.(0);
      // web-llm's rule: an equal conversation before the last message, whose reply ended well.
      const history = request.messages.slice(0, -1);
      const kept = this.#conversation;
      const reused = kept !== undefined && kept.finish !== 'abort' && kept.finish !== 'length' && history.some((m) => m.role !== 'system') && sameMessages(kept.messages, history);
      // Whatever happens next, the old conversation is gone unless it is continued.
      this.#conversation = undefined;
      if (!reused) this.#filled = 0;
      if (script.prefillError) throw script.prefillError;
      const format = request.response_format;
      if (format && this.config.grammar) grammar = await grammarMatcher(this.config.grammar, format.grammar);
      const promptTokens = script.promptTokens ?? doublePromptTokens(reused ? request.messages.slice(-1) : request.messages);
      pipeline.curRoundPrefillTotalTokens = promptTokens;
      pipeline.outputIds = [];
      pipeline.outputMessage = '';
      this.prefilled.push(promptTokens);
      this.rounds.push({ reused, kept: reused ? this.#filled : 0, prefilled: promptTokens });
      this.#filled += promptTokens;
      prefilled = true;
      const cap = request.max_tokens ?? Infinity;
      let steps = 0;
      let streamedLength = 0;
      for (const [step, content] of script.steps.entries()) {
        if (step > 0) {
          if (this.#interrupt) {
            record('abort');
            break;
          }
          await this.gate?.(step);
          // Each decode step feeds the token sampled before it.
          this.#filled++;
        }
        if (script.failAt?.step === step) throw script.failAt.error;
        // The stop token's step streams '' (the last step of a script that stops).
        const stopToken = content === '' && step === script.steps.length - 1 && script.finish === 'stop';
        if (grammar && content !== null && !grammar.accepts(stopToken ? 'stop' : content)) throw new Error('Grammar matcher rejected the newly sampled token.');
        steps++;
        // As web-llm's processNextToken: stop token, else the token is kept; then stop strings, then max_tokens.
        if (!stopToken) pipeline.outputIds.push(pipeline.idOf(content ?? ''));
        let message = pipeline.tokenizer.decode(Int32Array.from(pipeline.outputIds));
        let reason = stopToken ? 'stop' : undefined;
        for (const stop of stops) {
          const at = message.lastIndexOf(stop);
          if (at !== -1) {
            message = message.slice(0, at);
            reason = 'stop';
            break;
          }
        }
        pipeline.outputMessage = message;
        if (pipeline.outputIds.length >= cap) reason = 'length';
        else if (reason === undefined && step === script.steps.length - 1) reason = script.finish;
        if (reason !== undefined) record(reason);
        if (content !== null) {
          const delta = message.slice(streamedLength);
          streamedLength = message.length;
          yield { choices: [{ delta: { content: delta, role: 'assistant' } as { content: string }, finish_reason: null }] };
        }
        if (finish !== undefined) break;
      }
      if (finish === undefined) record(script.finish);
      yield { choices: [{ delta: {}, finish_reason: finish! }] };
      const completion = this.config.version === '0.2.79' ? steps - 1 : steps;
      yield { choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: completion } };
    } catch (error) {
      // A failed prefill or step leaves web-llm's conversation unusable: the next request starts afresh.
      this.#conversation = undefined;
      finish = 'error';
      throw error;
    } finally {
      // web-llm's generator, closed before the end: its `finally` stops the pipeline (`abort`).
      if (prefilled && finish === undefined) record('abort');
      grammar?.dispose();
      this.released++;
    }
  }
}
