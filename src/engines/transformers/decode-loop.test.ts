/**
 * The decoding loop on real onnxruntime-node inference: on the generated tiny chat model and on
 * stories260K's trained weights (skipped, saying so, where the shared models are missing).
 * - Without forced tokens it is `generate`: the same tokens greedy, seeded sampling and from a
 *   cache, and a cache after it that holds what `generate`'s holds.
 * - Forced tokens are read in one pass with the token before, and that pass leaves the model where
 *   reading them one at a time does: forcing the very tokens greedy decoding picks gives back the
 *   same answer, in fewer passes (an off-by-one position or a token left out of the cache changes
 *   the answer).
 * - Under JSON schemas, through the schema constraints, on real weights: every answer valid by
 *   ajv, forced tokens taken, fewer passes than tokens.
 */
import { AutoModelForCausalLM, AutoTokenizer, DynamicCache, LogitsProcessorList, type PreTrainedModel, type PreTrainedTokenizer, type Tensor } from '@huggingface/transformers';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validatorFor } from '../../../test/property/json-schemas.ts';
import { realWeightsDir, removeRealWeightsDir, sharedModelsMissing, STORIES_ID } from '../../../test/support/real-weights/index.ts';
import { skippedTitle } from '../../../test/support/skipped-title.ts';
import { generateTinyModels } from '../../tiny-models/generate.ts';
import { createSchemaConstraints } from '../grammar/schema-constraint.ts';
import type { TokenConstraint } from '../grammar/vocabulary.ts';
import { configureEnv } from './configure-env.ts';
import { Drafts, PredictionDrafter, PromptLookupDrafter, type Drafter } from '../decoding/drafts.ts';
import { decodeLoop, type TokenSink } from './decode-loop.ts';
import { GrammarMask } from './grammar-constraint.ts';
import { tokenizerVocabulary } from './tokenizer-vocabulary.ts';
import { TokenSampler } from './token-sampler.ts';

const missing = sharedModelsMissing();
let tinyDir: string;
beforeAll(async () => {
  tinyDir = await mkdtemp(join(tmpdir(), 'decode-loop-'));
  await generateTinyModels(tinyDir);
}, 60_000);
afterAll(async () => {
  await rm(tinyDir, { recursive: true, force: true });
  await removeRealWeightsDir();
});

interface Loaded {
  readonly model: PreTrainedModel;
  readonly tokenizer: PreTrainedTokenizer;
  /** Forward passes so far. */
  passes: number;
}

async function load(dir: string, id: string): Promise<Loaded> {
  configureEnv({ localModelPath: dir, allowRemoteModels: false });
  const tokenizer = await AutoTokenizer.from_pretrained(id);
  const model = await AutoModelForCausalLM.from_pretrained(id, { device: 'cpu' });
  const loaded: Loaded = { model, tokenizer, passes: 0 };
  const forward = model.forward.bind(model);
  model.forward = (inputs: unknown) => {
    loaded.passes++;
    return forward(inputs);
  };
  return loaded;
}

const encode = ({ tokenizer }: Loaded, text: string) => tokenizer(text, { add_special_tokens: true }) as { input_ids: Tensor; attention_mask: Tensor };
const sink = (): TokenSink & { ids: number[] } => {
  const ids: number[] = [];
  let prompt = true;
  return {
    ids,
    put(value) {
      if (prompt) prompt = false;
      else ids.push(...value[0]!.map(Number));
    },
    end() {},
  };
};
const signal = new AbortController().signal;
const endsOf = ({ model }: Loaded) => new Set([(model.generation_config as { eos_token_id?: number } | undefined)?.eos_token_id ?? (model.config as unknown as { eos_token_id: number }).eos_token_id].flat());

async function viaGenerate({ model }: Loaded, inputs: { input_ids: Tensor; attention_mask: Tensor }, maxNewTokens: number, processors = new LogitsProcessorList(), past?: DynamicCache): Promise<number[]> {
  const out = (await model.generate({ ...inputs, ...(past ? { past_key_values: past } : {}), max_new_tokens: maxNewTokens, do_sample: false, num_beams: 1, logits_processor: processors, return_dict_in_generate: true })) as unknown as { sequences: Tensor };
  return Array.from(out.sequences.data as BigInt64Array, Number).slice(inputs.input_ids.dims.at(-1)!);
}

/** A constraint that allows everything and forces, at the steps given, the next tokens of `script`. */
function scripted(script: readonly number[], forceAt: ReadonlyMap<number, number>, words: number): TokenConstraint & { taken: number[] } {
  const taken: number[] = [];
  const all = new Int32Array(words).fill(-1);
  return {
    taken,
    mask: () => all,
    ready: () => Promise.resolve(),
    forced: () => script.slice(taken.length, taken.length + (forceAt.get(taken.length) ?? 0)),
    accept(token) {
      taken.push(token);
      return true;
    },
    terminated: false,
    dispose() {},
  };
}

const MODELS: readonly (readonly [string, () => Promise<Loaded>, string | undefined])[] = [
  ['tiny-chat (generated)', () => load(tinyDir, 'tiny-chat'), undefined],
  ['stories260K (trained)', async () => load(await realWeightsDir(), STORIES_ID), missing],
];

describe.each(MODELS)('the decoding loop on %s', (_name, loadModel, skipped) => {
  let loaded: Loaded;
  beforeAll(async () => {
    if (!skipped) loaded = await loadModel();
  }, 60_000);
  afterAll(() => loaded?.model.dispose());
  const run = (inputs: { input_ids: Tensor; attention_mask: Tensor }, maxNewTokens: number, extra: { processors?: LogitsProcessorList; past?: DynamicCache; constraint?: TokenConstraint } = {}) => {
    const streamer = sink();
    return decodeLoop(loaded.model, { inputs, past: extra.past, maxNewTokens, processors: extra.processors ?? new LogitsProcessorList(), streamer, signal, endTokenIds: endsOf(loaded), multiToken: true, ...(extra.constraint ? { constraint: extra.constraint } : {}) }).then((decoded) => ({ ...decoded, streamed: streamer.ids }));
  };

  it.skipIf(skipped !== undefined)(skippedTitle('generates what generate does: greedy, sampling with a seed, from a cache', skipped), async () => {
    for (const [text, tokens] of [['Once upon a time', 24], ['The dog', 7], ['Lily saw a big red ball in the park and', 40]] as const) {
      const inputs = encode(loaded, text);
      const prompt = inputs.input_ids.dims.at(-1)!;
      const expected = await viaGenerate(loaded, inputs, tokens);
      const decoded = await run(inputs, tokens);
      expect(decoded.sequence.slice(prompt).map(Number)).toEqual(expected);
      expect(decoded.streamed).toEqual(expected);
      // The cache holds every token but the last, as generate's does.
      expect(decoded.past!.get_seq_length()).toBe(decoded.sequence.length - 1);
      await decoded.past!.dispose();

      const sampler = () => {
        const list = new LogitsProcessorList();
        list.push(new TokenSampler({ temperature: 0.9, topP: 0.9, seed: 11 }, prompt));
        return list;
      };
      expect((await run(inputs, tokens, { processors: sampler() })).sequence.slice(prompt).map(Number)).toEqual(await viaGenerate(loaded, inputs, tokens, sampler()));

      // From keys and values of the prompt's first tokens, as the prefix cache gives them.
      const head = Math.max(1, prompt - 2);
      const cacheOf = async () => {
        const outputs = (await loaded.model.forward({ input_ids: inputs.input_ids.slice(null, [0, head]), attention_mask: inputs.attention_mask.slice(null, [0, head]), past_key_values: null })) as Record<string, Tensor>;
        return new DynamicCache(Object.fromEntries(Object.entries(outputs).filter(([name]) => name.startsWith('present.')).map(([name, t]) => [name.replace('present.', 'past_key_values.'), t])));
      };
      expect((await run(inputs, tokens, { past: await cacheOf() })).sequence.slice(prompt).map(Number)).toEqual(expected);
    }
  });

  it.skipIf(skipped !== undefined)(skippedTitle('reads forced tokens in one pass, leaving the model where one at a time does', skipped), async () => {
    const inputs = encode(loaded, 'Once upon a time');
    const prompt = inputs.input_ids.dims.at(-1)!;
    const reference = (await run(inputs, 30)).sequence.slice(prompt).map(Number);
    // Forcing the very tokens greedy decoding picks, runs of 1 to 4 at some steps.
    const forceAt = new Map([[1, 3], [5, 1], [8, 4], [14, 2], [20, 3]]);
    const constraint = scripted(reference, forceAt, Math.ceil((loaded.model.config as unknown as { vocab_size: number }).vocab_size / 32));
    const before = loaded.passes;
    const decoded = await run(inputs, 30, { constraint });
    expect(decoded.sequence.slice(prompt).map(Number)).toEqual(reference);
    const forced = [...forceAt.values()].reduce((a, b) => a + b, 0);
    expect(decoded.forced).toBe(forced);
    // The prompt's pass, then one a step: every forced token saved one.
    expect(loaded.passes - before).toBe(1 + decoded.steps);
    expect(decoded.steps).toBe(30 - 1 - forced);
    await decoded.past?.dispose();
  });

  it.skipIf(skipped !== undefined)(skippedTitle('stops forcing at max_tokens and never forces after the end', skipped), async () => {
    const inputs = encode(loaded, 'The dog');
    const prompt = inputs.input_ids.dims.at(-1)!;
    const reference = (await run(inputs, 6)).sequence.slice(prompt).map(Number);
    const constraint = scripted(reference, new Map([[3, 10]]), Math.ceil((loaded.model.config as unknown as { vocab_size: number }).vocab_size / 32));
    const decoded = await run(inputs, 6, { constraint });
    expect(decoded.sequence.slice(prompt).map(Number)).toEqual(reference);
    // Three tokens chosen, then three of the ten forced: the cap.
    expect(decoded.forced).toBe(3);
    await decoded.past?.dispose();
  });
});

describe.skipIf(missing !== undefined)(skippedTitle('stories260K answering under JSON schemas', missing), () => {
  const SCHEMAS: readonly Record<string, unknown>[] = [
    { type: 'object', properties: { name: { type: 'string', maxLength: 12 }, age: { type: 'integer', minimum: 0, maximum: 120 } }, required: ['name', 'age'], additionalProperties: false },
    { type: 'object', properties: { mood: { enum: ['happy', 'sad', 'angry'] }, friends: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 6 }, minItems: 1, maxItems: 3 } }, required: ['mood', 'friends'], additionalProperties: false },
    { type: 'object', properties: { story: { type: 'object', properties: { title: { type: 'string', pattern: '^[A-Z][a-z]{1,8}$' }, pages: { type: 'integer', multipleOf: 2, minimum: 0, maximum: 10 } }, required: ['title', 'pages'], additionalProperties: false }, done: { type: 'boolean' } }, required: ['story', 'done'], additionalProperties: false },
    { type: 'array', items: { anyOf: [{ type: 'integer', maximum: 99 }, { const: 'none' }] }, minItems: 2, maxItems: 4 },
  ];
  let loaded: Loaded;
  beforeAll(async () => {
    loaded = await load(await realWeightsDir(), STORIES_ID);
  }, 60_000);
  afterAll(() => loaded?.model.dispose());

  it('answers valid by ajv, greedy and sampled, taking forced tokens in fewer passes', async () => {
    const size = (loaded.model.config as unknown as { vocab_size: number }).vocab_size;
    const ends = endsOf(loaded);
    const constraints = createSchemaConstraints(tokenizerVocabulary(loaded.tokenizer, size, ends));
    let forced = 0;
    for (const [i, schema] of SCHEMAS.entries()) {
      for (const temperature of [0, 0.8]) {
        const constraint = constraints.start({ kind: 'json', output: { kind: 'json_schema', schema, strict: true } })!;
        const inputs = encode(loaded, 'Once upon a time');
        const prompt = inputs.input_ids.dims.at(-1)!;
        const processors = new LogitsProcessorList();
        processors.push(new GrammarMask(constraint));
        if (temperature > 0) processors.push(new TokenSampler({ temperature, seed: i }, prompt));
        const streamer = sink();
        const decoded = await decodeLoop(loaded.model, { inputs, past: undefined, maxNewTokens: 160, processors, streamer, signal, endTokenIds: ends, constraint, multiToken: true });
        const text = loaded.tokenizer.decode(streamer.ids, { skip_special_tokens: true });
        expect(constraint.terminated, `${JSON.stringify(schema)} did not finish in 160 tokens: ${text}`).toBe(true);
        const { valid, errors } = validatorFor(schema as never, { formats: 'full' })(JSON.parse(text));
        expect(valid, `${text}\n${errors}`).toBe(true);
        expect(decoded.steps).toBeLessThan(streamer.ids.length);
        forced += decoded.forced;
        await decoded.past?.dispose();
      }
    }
    expect(forced).toBeGreaterThan(20);
  }, 120_000);
});

/**
 * Drafts (predicted outputs, prompt lookup) on real inference: they change how many passes an
 * answer takes, never its tokens. A draft token kept one position off, or a rejected draft token
 * left in the cache (the next tokens then attend to it), changes the answers below.
 */
describe.each(MODELS)('drafts on %s', (_name, loadModel, skipped) => {
  let loaded: Loaded;
  beforeAll(async () => {
    if (!skipped) loaded = await loadModel();
  }, 60_000);
  afterAll(() => loaded?.model.dispose());
  const run = (inputs: { input_ids: Tensor; attention_mask: Tensor }, maxNewTokens: number, extra: { processors?: () => LogitsProcessorList; past?: DynamicCache; drafts?: Drafter } = {}) => {
    const streamer = sink();
    const processors = extra.processors?.() ?? new LogitsProcessorList();
    // Drafts sized as for cheap extra positions, whatever these small models' passes measure: the loop is under test here, not the sizing.
    return decodeLoop(loaded.model, { inputs, past: extra.past, maxNewTokens, processors, streamer, signal, endTokenIds: endsOf(loaded), multiToken: true, passCost: { jump: 0, perPosition: 0.02 }, ...(extra.drafts ? { drafts: extra.drafts } : {}) }).then((decoded) => ({ ...decoded, streamed: streamer.ids }));
  };
  const PROMPTS = ['Once upon a time', 'The dog', 'Lily saw a big red ball in the park and'];
  /** A seeded stream of numbers in [0, 1). */
  const random = (seed: number) => () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  /** The answer with edits: tokens replaced, dropped and put in, at seeded places. */
  const edited = (answer: readonly number[], seed: number, vocab: number) => {
    const next = random(seed);
    const out: number[] = [];
    for (const token of answer) {
      const r = next();
      if (r < 0.06) out.push(Math.floor(next() * vocab));
      else if (r < 0.1) continue;
      else if (r < 0.14) out.push(token, Math.floor(next() * vocab));
      else out.push(token);
    }
    return out;
  };

  it.skipIf(skipped !== undefined)(skippedTitle('answers the same with any prediction or prompt lookup, greedy, in fewer passes where the draft is good', skipped), async () => {
    const vocab = (loaded.model.config as unknown as { vocab_size: number }).vocab_size;
    for (const text of PROMPTS) {
      const inputs = encode(loaded, text);
      const prompt = inputs.input_ids.dims.at(-1)!;
      const plain = await run(inputs, 48);
      const answer = plain.sequence.slice(prompt).map(Number);
      await plain.past?.dispose();
      const cases: [string, Drafter, (d: Awaited<ReturnType<typeof run>>) => void][] = [
        ['the answer itself', new PredictionDrafter(answer), (d) => {
          expect(d.steps).toBeLessThanOrEqual(Math.ceil(answer.length / 4));
          expect(d.drafted.accepted).toBeGreaterThanOrEqual(answer.length - 1 - d.steps);
        }],
        // Fewer passes than one a token.
        ['the answer edited', new PredictionDrafter(edited(answer, prompt, vocab)), (d) => expect(d.steps).toBeLessThan(answer.length * 0.75)],
        ['unrelated tokens', new PredictionDrafter(Array.from({ length: 40 }, (_, i) => (i * 7919 + 13) % vocab)), () => {}],
        ['its first half', new PredictionDrafter(answer.slice(0, 24)), () => {}],
        ['prompt lookup', new PromptLookupDrafter(), () => {}],
        ['prediction then lookup', new Drafts(new PredictionDrafter(edited(answer, prompt + 1, vocab)), new PromptLookupDrafter()), () => {}],
      ];
      for (const [name, drafts, check] of cases) {
        const decoded = await run(inputs, 48, { drafts });
        const tokens = decoded.sequence.slice(prompt).map(Number);
        expect(tokens, `${text} / ${name}`).toEqual(answer);
        expect(decoded.streamed, `${text} / ${name}`).toEqual(answer);
        // The cache holds the answer's tokens but the last, never a rejected one.
        expect(decoded.past!.get_seq_length(), `${text} / ${name}`).toBe(decoded.sequence.length - 1);
        check(decoded);
        // And it is the cache of those tokens: a next turn from it answers as one read from scratch.
        const next = encode(loaded, loaded.tokenizer.decode(decoded.sequence.map(Number), { skip_special_tokens: true }) + ' Then');
        const fromScratch = await run(next, 12);
        const head = decoded.sequence.length - 1;
        const sameStart = Array.from(next.input_ids.data as BigInt64Array).slice(0, head).every((id, i) => id === decoded.sequence[i]);
        if (sameStart) expect((await run(next, 12, { past: decoded.past! })).sequence, `${text} / ${name}, next turn`).toEqual(fromScratch.sequence);
        else await decoded.past!.dispose();
        await fromScratch.past?.dispose();
      }
    }
  }, 120_000);

  it.skipIf(skipped !== undefined)(skippedTitle('samples what plain decoding samples: the same tokens for each seed, and the same distribution', skipped), async () => {
    const inputs = encode(loaded, 'Once upon a time');
    const prompt = inputs.input_ids.dims.at(-1)!;
    const sampler = (seed: number) => () => {
      const list = new LogitsProcessorList();
      list.push(new TokenSampler({ temperature: 1, seed }, prompt));
      return list;
    };
    const greedy = (await run(inputs, 8)).sequence.slice(prompt).map(Number);
    // Seed by seed: drafting draws the same random numbers at the same positions.
    for (let seed = 0; seed < 40; seed++) {
      const plain = await run(inputs, 8, { processors: sampler(seed) });
      const drafted = await run(inputs, 8, { processors: sampler(seed), drafts: new PredictionDrafter(greedy) });
      expect(drafted.sequence, `seed ${seed}`).toEqual(plain.sequence);
    }
    // In distribution, on different seeds: the answer's second and third tokens, plain against
    // drafted (the draft, greedy's answer, kept where the sample agrees), a chi-squared test.
    const draws = 800;
    const counts = [new Map<string, number>(), new Map<string, number>()];
    for (let i = 0; i < draws; i++) {
      for (const [k, drafts] of [[0, undefined], [1, new PredictionDrafter(greedy)]] as const) {
        const decoded = await run(inputs, 3, { processors: sampler(k * 1_000_003 + i), ...(drafts ? { drafts } : {}) });
        const key = decoded.sequence.slice(prompt + 1).join(',');
        counts[k]!.set(key, (counts[k]!.get(key) ?? 0) + 1);
      }
    }
    expect(chiSquaredP(counts[0]!, counts[1]!)).toBeGreaterThan(0.001);
  }, 180_000);
});

/**
 * The p-value of a chi-squared test that two samples of the same size come from one distribution
 * (categories with fewer than 5 expected draws pooled), by the Wilson–Hilferty approximation.
 */
function chiSquaredP(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  const keys = new Set([...a.keys(), ...b.keys()]);
  let statistic = 0;
  let categories = 0;
  let pooled = [0, 0];
  const add = ([x, y]: number[]) => {
    const expected = (x! + y!) / 2;
    statistic += ((x! - expected) ** 2 + (y! - expected) ** 2) / expected;
    categories++;
  };
  for (const key of keys) {
    const x = a.get(key) ?? 0;
    const y = b.get(key) ?? 0;
    if ((x + y) / 2 < 5) pooled = [pooled[0]! + x, pooled[1]! + y];
    else add([x, y]);
  }
  if (pooled[0]! + pooled[1]! > 0) add(pooled);
  const k = categories - 1;
  if (k <= 0) return 1;
  const z = (Math.cbrt(statistic / k) - (1 - 2 / (9 * k))) / Math.sqrt(2 / (9 * k));
  return 0.5 * erfc(z / Math.SQRT2);
}

/** The complementary error function (Abramowitz and Stegun 7.1.26, |error| < 1.5e-7). */
function erfc(x: number): number {
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const y = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) * Math.exp(-x * x);
  return x >= 0 ? y : 2 - y;
}
