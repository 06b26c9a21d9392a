/**
 * The transformers.js adapter: serves chat and embedding models from ONNX files through
 * `@huggingface/transformers`. It only translates; queueing and memory bounds are the model host's.
 * @module
 */

import type { ModelInfo } from '../../core/engine.ts';
import { requireModel } from '../../core/models.ts';
import type { EngineAdapter } from '../hosting/adapter.ts';
import { generateChat } from './chat-generation.ts';
import { configureEnv, type EnvOptions } from './configure-env.ts';
import { chooseDevice, type DeviceChoice, type DeviceOption, type TransformersDevice } from './device.ts';
import { embedTexts } from './embedding.ts';
import { readLocalFacts } from './local-facts.ts';
import { clearFinishedParts } from '../files/index.ts';
import { defaultPrefixCacheBytes } from '../decoding/prefix-store.ts';
import type { PassCost } from '../decoding/drafts.ts';
import { KVPrefixCache } from './kv-prefix-cache.ts';
import { createPipelineLoader } from './pipeline-loader.ts';
import type { LoadXGrammar } from '../grammar/xgrammar.ts';
import type { TransformersModelSpec } from '../catalog/transformers-model-spec.ts';

export interface TransformersAdapterOptions extends EnvOptions {
  readonly models: readonly TransformersModelSpec[];
  /** Loads the grammar engine that constrains output (`response_format`); without it, chat models do not offer it. */
  readonly grammar?: LoadXGrammar;
  /** Default `auto`: `cpu` in Node; in a browser `webgpu` when an adapter exists, else `wasm`. */
  readonly device?: DeviceOption;
  /**
   * Bytes of key/value cache kept from finished chat requests, all models together, so that a
   * prompt beginning with tokens read before reads only the rest (0: none kept). Default: a
   * sixteenth of the device's memory, between 64 MiB and 1 GiB (see prefix-store.ts).
   */
  readonly prefixCacheBytes?: number;
  /**
   * Guess a chat answer's next tokens from its prompt and what it wrote so far, and check the
   * guesses several a pass (default true: backs off where they miss; the answers are the same
   * either way). A request's `prediction` is drafted from whatever this says.
   */
  readonly promptLookup?: boolean;
  /**
   * What a forward pass over a draft costs, in one-token passes, for sizing drafts: fixed, so that
   * drafting is the same run to run (tests); default: measured on the model's passes.
   */
  readonly draftPassCost?: PassCost;
  /** A chat prompt longer than this is read in pieces of it, bounding the memory one pass takes (default 256; chunked-prefill.ts). A positive integer. */
  readonly prefillChunkTokens?: number;
  /**
   * Where there is no Cache Storage (Node): whether a model's files are on this machine's disk
   * (its `source` under `localModelPath`), so that it is reported as downloaded. Without it, only
   * bundled models are.
   */
  readonly onDisk?: (source: string) => Promise<boolean>;
}

/**
 * Weights whose export quantizes the activations too (transformers.js's `q8`, `int8`, `uint8`:
 * DynamicQuantizeLinear takes one scale over the whole [positions × features] input), so that in a
 * pass over several tokens each position's logits depend on the others'. Drafts are not checked on
 * them: the answer would change with the draft (docs/decisions/speculative-decoding.md).
 */
const QUANTIZES_ACTIVATIONS = new Set(['q8', 'int8', 'uint8']);

/** The weights' dtype as transformers.js chose them: the one asked for, else the model's config's, else the device's default. */
function loadedDtype(pipe: { model: { config: unknown } }, spec: TransformersModelSpec, on: TransformersDevice): string {
  const asked = on === 'wasm' && spec.wasmDtype ? spec.wasmDtype : spec.dtype;
  if (asked) return asked;
  const configured = (pipe.model.config as { 'transformers.js_config'?: { dtype?: unknown } })['transformers.js_config']?.dtype;
  if (typeof configured === 'string') return configured;
  if (configured && typeof configured === 'object') {
    const model = (configured as Record<string, unknown>).model;
    if (typeof model === 'string') return model;
  }
  return on === 'wasm' ? 'q8' : 'fp32';
}

export function createTransformersAdapter(options: TransformersAdapterOptions): EngineAdapter & { device(): Promise<TransformersDevice> } {
  const configured = configureEnv(options, new Map(options.models.filter((spec) => spec.files).map((spec) => [spec.source, spec.files!])));
  let choice: Promise<DeviceChoice> | undefined;
  const chosen = () => (choice ??= chooseDevice(options.device));
  const loader = createPipelineLoader(async () => (await chosen()).device, configured);
  const specs = new Map(options.models.map((spec) => [spec.info.id, spec]));
  const prefixCache = new KVPrefixCache(options.prefixCacheBytes ?? defaultPrefixCacheBytes());
  const { prefillChunkTokens } = options;
  if (prefillChunkTokens !== undefined && !(Number.isInteger(prefillChunkTokens) && prefillChunkTokens > 0)) {
    throw new RangeError(`prefillChunkTokens must be a whole number of tokens, 1 or more, not ${JSON.stringify(prefillChunkTokens)}.`);
  }

  const lookup = (id: string, kind?: ModelInfo['kind']): TransformersModelSpec => {
    const spec = specs.get(id);
    requireModel(spec?.info, id, kind);
    return spec as TransformersModelSpec;
  };
  const task = (spec: TransformersModelSpec) => (spec.info.kind === 'chat' ? 'text-generation' : 'feature-extraction');
  const request = ({ info, source, dtype, wasmDtype, bundled, files }: TransformersModelSpec) => ({ id: info.id, source, dtype, ...(wasmDtype ? { wasmDtype } : {}), localOnly: bundled, files });

  return {
    models: options.models.map((spec) => (spec.info.kind !== 'chat' ? spec.info : { ...spec.info, logitBias: true, ...(spec.info.reasoning ? { keepsThinkingBudget: true } : {}), ...(options.grammar ? { structuredOutput: true, schemaMatcher: true, toolCalling: true } : {}) })),
    // Padded positions get exactly zero attention weight, so a batch changes speed, not vectors
    // (checked by the batching tests on the real engine).
    exactEmbeddingBatches: true,
    device: () => loader.device(),
    async load(model, { onProgress } = {}) {
      const spec = lookup(model);
      const started = performance.now();
      onProgress?.({ status: 'initiate', model });
      await loader.load(task(spec), request(spec), ({ file, loaded, total, cached, download }) =>
        // Files read back from the cache are marked, so a resumed download shows only the bytes it fetches.
        onProgress?.({ status: 'progress', model, file, loaded, total, ...(cached ? { cached: true as const } : {}), ...(download ? { download } : {}) }),
      );
      onProgress?.({ status: 'ready', model, device: await loader.device(), ms: performance.now() - started });
      // Its files are whole now: any parts an earlier download left of them only take room.
      void clearFinishedParts('transformers').catch(() => {});
    },
    async unload(model) {
      // Its keys and values mean nothing to another load (and hold its memory).
      prefixCache.drop(model);
      const pipe = await loader.forget(model);
      await pipe?.dispose().catch(() => {});
    },
    async *chat(chat, { signal }) {
      const spec = lookup(chat.model, 'chat');
      const pipe = await loader.load('text-generation', request(spec));
      const dtype = loadedDtype(pipe, spec, await loader.device());
      yield* generateChat(pipe, spec.info, chat, signal, { prefixCache, ...(options.grammar ? { loadGrammar: options.grammar } : {}), ...(prefillChunkTokens ? { prefillChunkTokens } : {}), ...(options.promptLookup === false ? { promptLookup: false } : {}), ...(QUANTIZES_ACTIVATIONS.has(dtype) ? { independentPositions: false } : {}), ...(options.draftPassCost ? { draftPassCost: options.draftPassCost } : {}) });
    },
    async embed(embed, { signal }) {
      const spec = lookup(embed.model, 'embedding');
      const pipe = await loader.load('feature-extraction', request(spec));
      return embedTexts(pipe, spec.info, embed.input, { pooling: spec.pooling ?? 'mean', normalize: spec.normalize ?? true }, signal);
    },
    localFacts: () => readLocalFacts(options.models, options.device ?? 'auto', chosen, options.onDisk, (model) => prefixCache.figures(model), configured.cpu?.()),
  };
}
