/**
 * One model's state as the models panel shows it, from what is known about it: the engine's
 * status, the live load view, the bytes on disk, the GPU and the network. Loading wins (it is
 * news), then loaded, then the reasons a model cannot load here, then plain availability.
 * @module
 */
import type { ModelStatus } from '../client/index.ts';
import { h } from './dom.ts';
import { formatBytes, formatMs, formatPercent } from './format.ts';
import type { GpuReport } from './gpu-info.ts';
import type { LoadView } from './load-progress.ts';
import type { ApiModel } from './model-list.ts';

export type RowState = 'loading' | 'loaded' | 'needs-webgpu' | 'failed' | 'offline' | 'available' | 'unknown';

export interface ModelFacts {
  readonly model: ApiModel;
  readonly status?: ModelStatus;
  readonly view?: LoadView;
  /** Bytes of its files in the engines' caches. */
  readonly bytes: number;
  readonly gpu?: GpuReport;
  readonly online: boolean;
  /** A load error this tab saw (a relayed load reports only its message). */
  readonly error?: string;
}

export function describeState(facts: ModelFacts): { state: RowState; parts: HTMLElement[] } {
  const { model, status, view, bytes } = facts;
  const label = (text: string) => h('span', { class: 'state-label' }, text);
  if (status?.state === 'loading' || view?.phase === 'loading') {
    const bar = h('progress', { max: 1, 'aria-label': `Loading ${model.id}`, 'data-testid': 'load-progress' });
    // No value attribute: an indeterminate bar, while the whole size is unknown.
    if (view?.fraction !== null && view?.fraction !== undefined) bar.value = view.fraction;
    const parts = [label('Loading'), bar, h('small', { class: 'progress-text', 'data-testid': 'progress-text' }, progressText(view))];
    if (view?.detail) parts.push(h('small', { class: 'progress-detail' }, view.detail));
    return { state: 'loading', parts };
  }
  if (status?.state === 'loaded') {
    const parts = [label('Loaded')];
    if (view?.phase === 'ready' && view.ms !== undefined) {
      const read = view.loaded ? ` · ${formatBytes(view.loaded)} read` : '';
      parts.push(h('small', {}, `in ${formatMs(view.ms)}${view.device ? ` on ${view.device.toUpperCase()}` : ''}${read}`));
    }
    return { state: 'loaded', parts };
  }
  if (model.engine === 'webllm' && facts.gpu && facts.gpu.webgpu !== 'ok') {
    return { state: 'needs-webgpu', parts: [label('Needs WebGPU'), h('small', {}, 'WebLLM runs only on a GPU; this browser offers none.')] };
  }
  if (status?.state === 'failed' || view?.phase === 'error' || facts.error) {
    return { state: 'failed', parts: [label('Failed'), h('small', { class: 'error-text' }, status?.error ?? view?.message ?? facts.error ?? '')] };
  }
  if (!facts.online && bytes === 0) {
    return { state: 'offline', parts: [label('Needs network'), h('small', {}, 'Not downloaded yet, so it cannot load offline.')] };
  }
  return {
    state: status ? 'available' : 'unknown',
    parts: [label(bytes > 0 ? 'On disk' : 'Available'), h('small', {}, bytes > 0 ? 'loads without network' : 'fetched on first load')],
  };
}

function progressText(view: LoadView | undefined): string {
  if (view?.total && view.fraction !== null) return `${formatBytes(view.loaded)} / ${formatBytes(view.total)} (${formatPercent(view.fraction)})`;
  if (view?.loaded) return `${formatBytes(view.loaded)} read${view.total ? '; setting up' : ' (sizes not sent by the server)'}…`;
  if (view?.fraction !== null && view?.fraction !== undefined) return formatPercent(view.fraction);
  return 'starting…';
}
