/**
 * The web-llm adapter: serves MLC-compiled chat and embedding models on WebGPU through
 * `@mlc-ai/web-llm`. It only translates; queueing and memory bounds are the model host's.
 * @module
 */

import type { AppConfig, ModelRecord } from '@mlc-ai/web-llm';
import type { ModelInfo } from '../../core/engine.ts';
import { GatewayError } from '../../core/errors.ts';
import { requireModel } from '../../core/models.ts';
import type { EngineAdapter } from '../hosting/adapter.ts';
import { releasingGpu } from '../device/gpu-device-watch.ts';
import type { LoadProgress } from '../../contracts/model-progress.ts';
import type { LoadXGrammar } from '../grammar/xgrammar.ts';
import type { WebLLMModelSpec } from '../catalog/webllm-model-spec.ts';
import type { SelfHost } from './app-config.ts';
import { streamChat } from './chat-stream.ts';
import { embedTexts } from './embedding.ts';
import { createGrammarFor } from './grammar.ts';
import { fitOf } from './device-fit.ts';
import { probeWebGPU, type GpuInfo, type GpuProbe } from './gpu.ts';
import { readLocalFacts } from './local-facts.ts';
import type { CreateMLCEngine, MLCEngineLike } from './mlc-engine-like.ts';
import { createProgressMapper } from './progress.ts';
import { keepCompiledGrammars } from './pipeline-internals.ts';
import { checkRoom, clearFinishedParts, createCachePartialStore, insufficientStorage, isQuotaError } from '../files/index.ts';
import { PromptTokenCounter } from './prompt-tokens.ts';

export interface WebLLMAdapterOptions {
  /** The catalog's models (short ids that pick a variant per device) and the app's own. */
  readonly models: readonly WebLLMModelSpec[];
  /**
   * Also serve every chat and embedding model of web-llm's own list under web-llm's ids (default
   * true): read from the installed package when its script is first loaded (prebuilt-models.ts).
   */
  readonly prebuiltModels?: boolean;
  /** web-llm's list to serve and to take records from; default the installed package's `prebuiltAppConfig` (tests pass a double). */
  readonly prebuilt?: AppConfig;
  /** Fetch weights and libraries from your own origin (see `SelfHost`). */
  readonly selfHost?: SelfHost;
  /** Where web-llm keeps downloaded files (its default: Cache Storage). */
  readonly cacheBackend?: AppConfig['cacheBackend'];
  /** Default: `navigator.gpu`'s high-performance adapter; `null` means no WebGPU. */
  readonly gpu?: GpuProbe;
  /** Default: `new MLCEngine(options)`. Tests inject a test double here. */
  readonly createEngine?: CreateMLCEngine;
  /**
   * Loads the grammar engine that builds the grammar for `response_format` and `tools` (web-llm
   * enforces it); without it, chat models offer neither.
   */
  readonly grammar?: LoadXGrammar;
  /**
   * Default true where there is Cache Storage and web-llm keeps its files there: the model's files
   * are fetched by the product (resumable, checked, told as progress by bytes) into the caches
   * web-llm reads, before `reload()` (fetch-files.ts). False leaves every download to web-llm.
   */
  readonly fetchFiles?: boolean;
}

/** One model's engine. Its `engine` and `variant` are set once the GPU probe has picked a variant. */
interface Slot {
  ready: Promise<void>;
  engine?: MLCEngineLike;
  variant?: string;
  readonly prompts: PromptTokenCounter;
}

export function createWebLLMAdapter(options: WebLLMAdapterOptions): EngineAdapter {
  const specs = new Map(options.models.map((spec) => [spec.info.id, spec]));
  // web-llm, its list of models and our records of them, on first use (see runtime.ts).
  let runtime: Promise<Runtime> | undefined;
  const prepare = () =>
    (runtime ??= import('./runtime.ts').then((lib) => {
      const prebuilt = options.prebuilt ?? lib.prebuiltAppConfig;
      const all = options.prebuiltModels === false ? [...options.models] : lib.withPrebuiltModels(options.models, prebuilt, CREATED);
      const appConfig = lib.buildAppConfig(all, { ...options, prebuilt });
      for (const spec of all) specs.set(spec.info.id, spec);
      return {
        lib,
        appConfig,
        models: all.map((spec) => withFeatures(spec.info)),
        records: new Map(appConfig.model_list.map((record) => [record.model_id, record])),
        createEngine: options.createEngine ?? ((engineOptions) => new lib.MLCEngine(engineOptions)),
      };
    }, (error: unknown) => {
      runtime = undefined; // e.g. its script could not be fetched: the next load tries again
      throw new GatewayError('model_unavailable', `web-llm itself could not be loaded (${error instanceof Error ? error.message : String(error)}), so no WebLLM model can run until it can.`, { cause: error });
    }));
  let gpu: Promise<GpuInfo | null> | undefined;
  const probe = () => (gpu ??= (options.gpu ?? probeWebGPU)());
  const slots = new Map<string, Slot>();
  const grammarFor = createGrammarFor(options.grammar);
  // Given the grammar engine, the same grammar as on transformers.js models, which web-llm
  // enforces as a `grammar` response format (grammar.ts); never web-llm's own JSON mode, which
  // compiles schemas without the fixes that make output valid by construction.
  const withFeatures = (info: ModelInfo): ModelInfo => (info.kind !== 'chat' ? info : { ...info, logitBias: true, ...(options.grammar ? { structuredOutput: true, toolCalling: true } : {}) });

  /** The model's spec: from the catalog at once, else from web-llm's list once it is read. */
  const lookup = async (id: string, kind?: ModelInfo['kind']): Promise<WebLLMModelSpec> => {
    if (!specs.has(id) && options.prebuiltModels !== false) await prepare();
    const spec = specs.get(id);
    requireModel(spec?.info, id, kind);
    return spec as WebLLMModelSpec;
  };

  async function open(model: string, spec: WebLLMModelSpec, slot: Slot, onProgress?: (progress: LoadProgress) => void): Promise<void> {
    const started = performance.now();
    onProgress?.({ status: 'initiate', model });
    const info = await probe().catch(() => null);
    if (!info) throw noWebGPU(model);
    const { lib, appConfig, records, createEngine } = await prepare();
    if (slots.get(model) !== slot) throw unloadedWhileLoading(model);
    const variant = lib.pickVariant(spec, info.hasShaderF16);
    const record = records.get(variant) as ModelRecord;
    // Before any file is fetched: a model this device cannot run is refused with the reason.
    const fit = fitOf(record, info);
    if (!fit.runnable) throw new GatewayError('model_unavailable', `The WebLLM model "${model}" cannot run on this device: ${fit.reason}`);
    const progress = createProgressMapper(model);
    // The model's files come through the product's resumable, checked download (fetch-files.ts),
    // into the caches web-llm reads: its reload() then fetches nothing.
    if (options.fetchFiles !== false && typeof caches !== 'undefined' && (appConfig.cacheBackend ?? 'cache') === 'cache' && record.model_manifest === undefined) {
      const { fetchWebLLMFiles } = await import('./fetch-files.ts');
      await fetchWebLLMFiles(record, {
        resume: { store: createCachePartialStore('webllm') },
        room: (bytes, url) => checkRoom(bytes, url),
        onBytes: ({ file, loaded, total, cached, download }) => onProgress?.({ status: 'progress', model, file, loaded, total, ...(cached ? { cached } : {}), ...(download ? { download } : {}) }),
      }).catch((error: unknown) => {
        if (isQuotaError(error)) throw insufficientStorage(`the WebLLM model "${model}"`, undefined, undefined);
        throw error instanceof GatewayError ? error : new GatewayError('model_unavailable', `The files of the WebLLM model "${model}" could not be downloaded: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      });
      // Its files are whole now: any parts an earlier download left of them only take room.
      void clearFinishedParts('webllm').catch(() => {});
      if (slots.get(model) !== slot) throw unloadedWhileLoading(model);
    }
    // One engine per model: an MLCEngine's reload() unloads whatever it held, so a chat model and
    // an embedding model can stay loaded side by side only in engines of their own. It also keeps
    // interruptGenerate(), which is engine-wide, confined to the one model it is meant for.
    try {
      const engine = createEngine({
        appConfig,
        initProgressCallback: (report) => {
          // Mapped even with nobody listening: the phase tells a failure's URL.
          const stage = progress.map(report);
          onProgress?.(stage);
        },
      });
      slot.engine = engine;
      slot.variant = variant;
      // web-llm destroys its own device when a buffer does not fit in GPU memory, and reports that
      // as the load's failure: not a loss that should rebuild the engine worker (a retry would loop).
      await releasingGpu(() => engine.reload(variant));
    } catch (error) {
      throw lib.loadFailure(model, record, error, progress.phase);
    }
    // web-llm's reload() resolves without error when unload() cut it short.
    if (slots.get(model) !== slot) throw unloadedWhileLoading(model);
    // An agent alternates between its tools and its final schema: compile each once, not each turn.
    keepCompiledGrammars(slot.engine as MLCEngineLike, variant);
    onProgress?.({ status: 'ready', model, device: 'webgpu', ms: performance.now() - started });
  }

  async function load(model: string, onProgress?: (progress: LoadProgress) => void): Promise<Slot> {
    const spec = await lookup(model);
    let slot = slots.get(model);
    if (!slot) {
      const created: Slot = { ready: Promise.resolve(), prompts: new PromptTokenCounter() };
      slots.set(model, created);
      created.ready = open(model, spec, created, onProgress).catch(async (error: unknown) => {
        if (slots.get(model) === created) slots.delete(model);
        await releasingGpu(() => created.engine?.unload() ?? Promise.resolve()).catch(() => {});
        throw error;
      });
      slot = created;
    }
    await slot.ready;
    return slot;
  }

  return {
    models: options.models.map((spec) => withFeatures(spec.info)),
    // Each text is embedded alone (embedding.ts), so merging requests into a batch changes nothing.
    exactEmbeddingBatches: true,
    ...(options.prebuiltModels === false ? {} : { listModels: async () => (await prepare()).models }),
    async load(model, { onProgress } = {}) {
      await load(model, onProgress);
    },
    async unload(model) {
      const slot = slots.get(model);
      if (!slot) return;
      slots.delete(model);
      // web-llm destroys its device on unload: a release, not a loss.
      await releasingGpu(() => slot.engine?.unload() ?? Promise.resolve()).catch(() => {});
      await slot.ready.catch(() => {});
    },
    async *chat(request, { signal }) {
      const spec = await lookup(request.model, 'chat');
      // Before the load: a schema that cannot be enforced is a 400 without waiting for the model.
      const grammar = await grammarFor(request, spec.info.reasoning);
      const slot = await load(request.model);
      yield* streamChat(slot.engine as MLCEngineLike, slot.variant as string, slot.prompts, request, signal, grammar, spec.info.reasoning);
    },
    async embed(request, { signal }) {
      const spec = await lookup(request.model, 'embedding');
      const slot = await load(request.model);
      return embedTexts(slot.engine as MLCEngineLike, request.input, {
        model: request.model,
        variant: slot.variant as string,
        normalize: spec.normalize ?? true,
        signal,
      });
    },
    // The same probe that picks the variant at load, so the facts name the variant a load would use.
    localFacts: async () => {
      const [{ records }, info] = await Promise.all([prepare(), probe().catch(() => null)]);
      return readLocalFacts([...specs.values()], records, info);
    },
  };
}

/** When web-llm's own models are listed as made (OpenAI `created`): unknown, so the catalog's date. */
const CREATED = Date.UTC(2026, 10, 1) / 1000;

interface Runtime {
  readonly lib: typeof import('./runtime.ts');
  readonly appConfig: AppConfig;
  /** Every model it serves, as listed. */
  readonly models: readonly ModelInfo[];
  readonly records: ReadonlyMap<string, ModelRecord>;
  readonly createEngine: CreateMLCEngine;
}

function noWebGPU(modelId: string): GatewayError {
  return new GatewayError(
    'model_unavailable',
    `WebGPU is not available, so the WebLLM model "${modelId}" cannot run here. Use one of the catalog's transformers.js models instead.`,
  );
}

function unloadedWhileLoading(model: string): GatewayError {
  return new GatewayError('model_unavailable', `The WebLLM model "${model}" was unloaded while it was loading.`);
}
