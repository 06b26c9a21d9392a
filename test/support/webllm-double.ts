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
  /** What web-llm's tokenizer makes of the prompt it prefills this round. */
  readonly promptTokens: number;
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

/** The internal pipeline object web-llm keeps per loaded model; only its prefill count and vocabulary size are played. */
class PipelineDouble {
  curRoundPrefillTotalTokens = 0;
  /** Logits per step (Qwen2.5's), read by pipeline-internals.ts. */
  readonly fullVocabSize = 151_936;

  getCurRoundPrefillTotalTokens(): number {
    return this.curRoundPrefillTotalTokens;
  }
}

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
  const promptTokens = doublePromptTokens(request.messages);
  const steps = Array.from({ length: 12 }, (_, i) => ` ${WORDS[(promptTokens + i * 5) % WORDS.length]}`);
  return { steps: [...steps, ''], finish: 'stop', promptTokens };
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
  }

  async unload(): Promise<void> {
    this.unloads++;
    this.loadedModelIdToPipeline?.clear();
    this.#loaded = undefined;
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
    const pipeline = this.loadedModelIdToPipeline?.get(this.#loaded as string);
    let grammar: Awaited<ReturnType<typeof grammarMatcher>> | undefined;
    try {
      if (pipeline) pipeline.curRoundPrefillTotalTokens = 0;
      await this.gate?.(0);
      if (script.prefillError) throw script.prefillError;
      const format = request.response_format;
      if (format && this.config.grammar) grammar = await grammarMatcher(this.config.grammar, format.grammar);
      if (pipeline) pipeline.curRoundPrefillTotalTokens = script.promptTokens;
      this.prefilled.push(script.promptTokens);
      const cap = request.max_tokens ?? Infinity;
      let finish: string = script.finish;
      let steps = 0;
      for (const [step, content] of script.steps.entries()) {
        if (step >= cap) {
          finish = 'length';
          break;
        }
        if (step > 0) {
          if (this.#interrupt) {
            finish = 'abort';
            break;
          }
          await this.gate?.(step);
        }
        if (script.failAt?.step === step) throw script.failAt.error;
        // The stop token's step streams '' (the last step of a script that stops).
        const stopToken = content === '' && step === script.steps.length - 1 && script.finish === 'stop';
        if (grammar && content !== null && !grammar.accepts(stopToken ? 'stop' : content)) throw new Error('Grammar matcher rejected the newly sampled token.');
        steps++;
        if (content !== null) yield { choices: [{ delta: { content, role: 'assistant' } as { content: string }, finish_reason: null }] };
      }
      yield { choices: [{ delta: {}, finish_reason: finish }] };
      const completion = this.config.version === '0.2.79' ? steps - 1 : steps;
      yield { choices: [], usage: { prompt_tokens: script.promptTokens, completion_tokens: completion } };
    } finally {
      grammar?.dispose();
      this.released++;
    }
  }
}
