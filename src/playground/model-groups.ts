/**
 * How the model pickers order a long list (web-llm alone offers 160 models): the featured ones
 * first, then one group per model line, smallest first, each model described by what it needs of
 * the device and whether this one can run it. No DOM: model-picker.ts builds the `<select>`.
 * @module
 */
import { groupsForModel, type CachedGroup } from '../engines/files/index.ts';
import { formatBytes } from './format.ts';
import type { ApiModel } from './model-list.ts';

export interface ModelGroup {
  readonly label: string;
  readonly models: readonly ApiModel[];
}

const ENGINE_GROUPS: Record<string, string> = { transformers: 'transformers.js (WebGPU or WASM)', remote: 'Remote servers', builtin: "The browser's own" };

/**
 * Featured first (the bundled default ones among them), then by family in alphabetical order, each
 * family by size; models without a family go by engine, after the families.
 */
export function groupModels(models: readonly ApiModel[], firsts: readonly string[] = []): ModelGroup[] {
  const featured = models.filter((m) => m.featured || firsts.includes(m.id));
  const rest = models.filter((m) => !featured.includes(m));
  const byLabel = new Map<string, ApiModel[]>();
  for (const model of rest) {
    const label = model.family ?? ENGINE_GROUPS[model.engine] ?? model.engine;
    let list = byLabel.get(label);
    if (!list) byLabel.set(label, (list = []));
    list.push(model);
  }
  const families = [...byLabel].filter(([, list]) => list[0]!.family !== undefined).sort(([a], [b]) => a.localeCompare(b, 'en', { sensitivity: 'base', numeric: true }));
  const engines = [...byLabel].filter(([, list]) => list[0]!.family === undefined);
  return [
    ...(featured.length ? [{ label: 'Featured', models: featured.sort((a, b) => firstsFirst(a, b, firsts)) }] : []),
    ...families.map(([label, list]) => ({ label, models: list.sort(bySize) })),
    ...engines.map(([label, models]) => ({ label, models })),
  ];
}

const firstsFirst = (a: ApiModel, b: ApiModel, firsts: readonly string[]) => rank(a, firsts) - rank(b, firsts);
const rank = (model: ApiModel, firsts: readonly string[]) => (firsts.includes(model.id) ? firsts.indexOf(model.id) : firsts.length);

/** Smallest first (`360M` before `0.6B` before `E2B`…), then by id. */
function bySize(a: ApiModel, b: ApiModel): number {
  return sizeOf(a) - sizeOf(b) || a.id.localeCompare(b.id, 'en', { numeric: true });
}

function sizeOf(model: ApiModel): number {
  const match = /^E?(\d+(?:\.\d+)?)([BM])$/i.exec(model.size ?? '');
  if (!match) return Number.POSITIVE_INFINITY;
  return Number(match[1]) * (match[2]!.toUpperCase() === 'B' ? 1000 : 1);
}

/** What the model needs of the device, in a few words: `WebGPU + shader-f16 · 1.4 GB GPU memory · fits phones`. */
export function needsOf(model: ApiModel): string {
  const local = model.local;
  const parts: string[] = [];
  const requires = (local?.requires ?? []).map((r) => (r === 'webgpu' ? 'WebGPU' : r === 'prompt-api' ? 'a browser model' : r));
  if (requires.length) parts.push(requires.join(' + '));
  // web-llm states it in MiB.
  if (local?.vramRequiredMB !== undefined) parts.push(`${formatBytes(local.vramRequiredMB * 2 ** 20)} GPU memory`);
  if (local?.downloadBytes !== undefined) parts.push(`${formatBytes(local.downloadBytes)} download`);
  if (local?.lowResource) parts.push('fits phones');
  if (model.thinks) parts.push('thinks first');
  return parts.join(' · ');
}

/** Whether this device can run it: `runs here`, `cannot run here`, or unknown (no local state). */
export function fitOf(model: ApiModel): 'runs here' | 'cannot run here' | undefined {
  if (model.remote || !model.local) return undefined;
  return model.local.runnable ? 'runs here' : 'cannot run here';
}

/** One option's words: the id, its size, and whether it runs here. */
export function optionLabel(model: ApiModel): string {
  const fit = fitOf(model);
  return `${model.id}${fit === 'cannot run here' ? ' — cannot run here' : ''}`;
}

/** The line under a picker for the chosen model: what it needs, and whether (or why not) it runs here. */
export function describeChoice(model: ApiModel): string {
  const needs = needsOf(model);
  const fit = fitOf(model);
  const why = fit === 'cannot run here' && model.local?.reason ? `: ${model.local.reason}` : '';
  return [needs && `Needs ${needs}`, fit && `${fit.charAt(0).toUpperCase()}${fit.slice(1)}${why}`].filter(Boolean).join('. ');
}

/**
 * Which cached files are whose, as the engine counts them for `size_bytes`: a model's by its id, and
 * by the source its `local` state names (a folder named apart from the model's id); the rest no
 * listed model uses. What the models panel's Delete removes.
 */
export function cachedFilesOf(models: readonly ApiModel[], groups: readonly CachedGroup[]): { readonly byModel: ReadonlyMap<string, CachedGroup[]>; readonly others: CachedGroup[] } {
  const byModel = new Map(models.map((model) => [model.id, groupsForModel(groups, { id: model.id, engine: model.engine, ...(model.local?.source ? { source: model.local.source } : {}) })] as const));
  const used = new Set([...byModel.values()].flat());
  return { byModel, others: groups.filter((group) => !used.has(group)) };
}
