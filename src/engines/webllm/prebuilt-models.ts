/**
 * Every chat and embedding model of web-llm's own list (`prebuiltAppConfig` of the installed
 * package, read at run time) as catalog specs under web-llm's ids, beside the catalog's short ids
 * (which pick a variant per device). A web-llm upgrade brings its new models with no change here.
 * Types only from web-llm: the list itself comes with its script (runtime.ts).
 * See docs/decisions/webllm-models-from-its-own-list.md.
 * @module
 */
import type { AppConfig, ModelRecord } from '@mlc-ai/web-llm';
import type { ModelInfo } from '../../core/engine.ts';
import type { ReasoningFormat } from '../../core/reasoning.ts';
import type { WebLLMModelSpec } from '../catalog/webllm-model-spec.ts';

/** web-llm's `ModelType` values (the enum lives in its script, which this module does not load). */
const EMBEDDING = 1;
const VISION = 2;

/**
 * The catalog's specs with the record's own figures, then every chat and embedding record of
 * `prebuilt` whose id the catalog does not use. Vision models are left out: this API takes no
 * images for web-llm models, and their text-only use is what the chat models offer.
 */
export function withPrebuiltModels(specs: readonly WebLLMModelSpec[], prebuilt: AppConfig, created?: number): WebLLMModelSpec[] {
  const records = new Map(prebuilt.model_list.map((record) => [record.model_id, record]));
  const taken = new Set(specs.map((spec) => spec.info.id));
  const out = specs.map((spec) => (spec.record ? spec : withRecordFigures(spec, records)));
  for (const record of prebuilt.model_list) {
    if (taken.has(record.model_id) || record.model_type === VISION) continue;
    taken.add(record.model_id);
    out.push({ info: infoOf(record, created), variants: { f32: record.model_id } });
  }
  return out;
}

/** A catalog spec's context window is the smallest its variants run with, as web-llm allocates it. */
function withRecordFigures(spec: WebLLMModelSpec, records: ReadonlyMap<string, ModelRecord>): WebLLMModelSpec {
  const variants = [spec.variants.f16, spec.variants.f32].flatMap((id) => (id === undefined ? [] : [records.get(id)]));
  if (variants.some((record) => record === undefined)) return spec; // named as the mistake it is by buildAppConfig
  const windows = (variants as ModelRecord[]).map((record) => contextWindowOf(record, spec.info.kind));
  const contextWindow = Math.min(...windows);
  const name = describeWebLLMId(spec.variants.f32);
  return {
    ...spec,
    info: {
      ...spec.info,
      contextWindow,
      ...(spec.info.maxOutputTokens !== undefined ? { maxOutputTokens: Math.min(spec.info.maxOutputTokens, contextWindow) } : {}),
      family: spec.info.family ?? name.family,
      ...((spec.info.size ?? name.size) !== undefined ? { size: spec.info.size ?? name.size } : {}),
      ...withReasoning(spec.variants.f32),
    },
  };
}

function infoOf(record: ModelRecord, created: number | undefined): ModelInfo {
  const kind = record.model_type === EMBEDDING ? 'embedding' : 'chat';
  const contextWindow = contextWindowOf(record, kind);
  const name = describeWebLLMId(record.model_id);
  return {
    id: record.model_id,
    kind,
    engine: 'webllm',
    displayName: name.displayName,
    ...(created !== undefined ? { created } : {}),
    contextWindow,
    ...(kind === 'chat' ? { maxOutputTokens: contextWindow } : {}),
    family: name.family,
    ...(name.size !== undefined ? { size: name.size } : {}),
    ...(kind === 'chat' ? withReasoning(record.model_id) : {}),
  };
}

const THINK = { open: '<think>', close: '</think>' } as const;

/**
 * How web-llm's thinking models write their thinking, by model line: Qwen3 (and 3.5) between
 * `<think>` markers, switched off by web-llm's `enable_thinking: false` (an empty block written
 * first); DeepSeek-R1's distills likewise but always, their template opening the block (the
 * splitter also takes a block the model opens itself). No budgets, and no `keepsThinkingBudget`:
 * web-llm cannot end the thinking at a budget (docs/decisions/thinking-budget.md).
 */
export function reasoningOf(modelId: string): ReasoningFormat | undefined {
  if (/^Qwen3(?:[-.]|$)/.test(modelId)) return { ...THINK, switch: 'enable_thinking' };
  if (/^DeepSeek-R1-Distill/.test(modelId)) return { ...THINK, startsInside: true };
  return undefined;
}

const withReasoning = (modelId: string) => {
  const reasoning = reasoningOf(modelId);
  return reasoning ? { reasoning } : {};
};

/**
 * The tokens web-llm's KV cache holds: the record's `context_window_size`, else the `ctx<N>` its
 * library was compiled for (`…-ctx512_cs512_batch4-webgpu.wasm`, `…-ctx4k_cs1k-…`), else the
 * usual 4096 (chat) or 512 (embedding).
 */
export function contextWindowOf(record: ModelRecord, kind: ModelInfo['kind']): number {
  const window = record.overrides?.context_window_size;
  if (window !== undefined && window > 0) return window;
  const compiled = /[-_]ctx(\d+)(k?)[-_]/.exec(record.model_lib);
  if (compiled) return Number(compiled[1]) * (compiled[2] ? 1024 : 1);
  return kind === 'embedding' ? 512 : 4096;
}

export interface WebLLMName {
  /** The model line, e.g. `Qwen3`, `Llama-3.2`, `gemma-2`: what the playground groups by. */
  readonly family: string;
  /** Its size when the id says it, e.g. `0.6B`, `E2B`, `1.6B`. */
  readonly size?: string;
  /** The quantization, e.g. `q4f16_1` (its `f16` part needs the GPU's `shader-f16`). */
  readonly quantization?: string;
  /** e.g. `Qwen3 0.6B (q4f16_1)`, `Llama 3.1 8B Instruct (q4f32_1, 1k)`. */
  readonly displayName: string;
}

/** What web-llm's ids say of a model: `<name>-<quantization>-MLC[-<variant>]`, the size a `<N>B` part of the name. */
export function describeWebLLMId(id: string): WebLLMName {
  const match = /^(.*?)-(q\d+f\d+(?:_\d+)?)-MLC(?:-(.+))?$/.exec(id);
  const base = match?.[1] ?? id;
  const quantization = match?.[2];
  const variant = match?.[3];
  const parts = base.split('-');
  const at = parts.findIndex((part, i) => i > 0 && /^(?:E?\d+(?:[._]\d+)?)[BbMm]$/.test(part));
  const fromGlued = at === -1 ? /^(.*?\D)(\d+(?:[._]\d+)?[bB])$/.exec(parts[0] ?? '') : null;
  const size = at !== -1 ? normaliseSize(parts[at]!) : undefined;
  const family = at !== -1 ? parts.slice(0, at).join('-') : (fromGlued?.[1] ?? base.replace(/-(?:it|Instruct|chat|chat-hf)$/i, ''));
  const details = [quantization, variant].filter(Boolean).join(', ');
  return {
    family,
    ...(size !== undefined ? { size } : fromGlued ? { size: normaliseSize(fromGlued[2]!) } : {}),
    ...(quantization !== undefined ? { quantization } : {}),
    displayName: `${base.replace(/-/g, ' ')}${details ? ` (${details})` : ''}`,
  };
}

/** `1_6b` → `1.6B`, `1b` → `1B`; `E2B` and `360M` stay as they are. */
function normaliseSize(size: string): string {
  return size.replace('_', '.').replace(/[bm]$/, (unit) => unit.toUpperCase());
}

/** Whether a web-llm record runs f16 shaders: it says so (`required_features`), or its quantization is an f16 one. */
export function needsShaderF16(record: ModelRecord): boolean {
  return (record.required_features ?? []).includes('shader-f16') || /^q\d+f16/.test(describeWebLLMId(record.model_id).quantization ?? '');
}
