/**
 * One model's state as the models panel shows it, from what is known about it: its `local` state
 * in `GET /models` (the engine's word, from any tab), the live load view and the network. Loading
 * wins (it is news), then loaded, then the reasons a model cannot load here, then availability.
 * @module
 */
import { h } from './dom.ts';
import { formatBytes, formatMs, formatPercent } from './format.ts';
import type { LoadView } from './load-progress.ts';
import type { ApiLocalState, ApiModel } from './model-list.ts';

export type RowState = 'remote' | 'loading' | 'loaded' | 'needs-webgpu' | 'unsupported' | 'failed' | 'offline' | 'available' | 'unknown';

export interface ModelFacts {
  readonly model: ApiModel;
  /** From the last `GET /models`; absent when the engine did not report it. */
  readonly local?: ApiLocalState;
  readonly view?: LoadView;
  readonly online: boolean;
  /** A load error this tab saw (a relayed load reports only its message). */
  readonly error?: string;
}

export function describeState(facts: ModelFacts): { state: RowState; parts: HTMLElement[] } {
  const described = facts.model.remote ? describeRemote(facts.model.remote) : describeLoadState(facts);
  const exit = facts.local?.lastExit;
  // The engine came back on its own: say so beside whatever state the model is in now.
  if (exit) described.parts.push(h('small', { class: 'exit-note', 'data-testid': 'last-exit', title: exit.message }, exitNote(exit)));
  if (facts.model.fallback) described.parts.push(h('small', { 'data-testid': 'fallback' }, `falls back to ${facts.model.fallback}`));
  return described;
}

/** A model on another server: nothing to load here; whether its servers answered when listed. */
function describeRemote(remote: NonNullable<ApiModel['remote']>): { state: RowState; parts: HTMLElement[] } {
  return {
    state: 'remote',
    parts: [
      h('span', { class: 'state-label' }, remote.available ? 'On a server' : 'Server not answering'),
      h('small', {}, remote.upstreams.map((u) => `${u.url} (${u.state})`).join(', ')),
    ],
  };
}

function exitNote(exit: NonNullable<ApiLocalState['lastExit']>): string {
  const at = new Date(exit.at).toLocaleTimeString();
  return exit.reason === 'device_lost' ? `Engine rebuilt at ${at} after the GPU device was lost` : `Engine restarted at ${at} after it stopped unexpectedly`;
}

function describeLoadState(facts: ModelFacts): { state: RowState; parts: HTMLElement[] } {
  const { model, local, view } = facts;
  const label = (text: string) => h('span', { class: 'state-label' }, text);
  if (local?.state === 'loading' || view?.phase === 'loading') {
    const bar = h('progress', { max: 1, 'aria-label': `Loading ${model.id}`, 'data-testid': 'load-progress' });
    // No value attribute: an indeterminate bar, while the whole size is unknown.
    if (view?.fraction !== null && view?.fraction !== undefined) bar.value = view.fraction;
    const parts = [label('Loading'), bar, h('small', { class: 'progress-text', 'data-testid': 'progress-text' }, progressText(view))];
    if (view?.detail) parts.push(h('small', { class: 'progress-detail' }, view.detail));
    if (view?.download) parts.push(h('small', { class: 'progress-download', 'data-testid': 'download-note' }, view.download));
    return { state: 'loading', parts };
  }
  if (local?.state === 'loaded') {
    const parts = [label('Loaded')];
    if (view?.phase === 'ready' && view.ms !== undefined) {
      const read = view.loaded ? ` · ${formatBytes(view.loaded)} read` : '';
      parts.push(h('small', {}, `in ${formatMs(view.ms)}${view.device ? ` on ${view.device.toUpperCase()}` : ''}${read}`));
    }
    return { state: 'loaded', parts };
  }
  if (local && !local.runnable) {
    // WebGPU itself missing; a GPU without a feature or the room a model needs "cannot run" it.
    const needsGpu = local.requires.includes('webgpu') && /WebGPU is not available/.test(local.reason ?? '');
    return {
      state: needsGpu ? 'needs-webgpu' : 'unsupported',
      parts: [label(needsGpu ? 'Needs WebGPU' : 'Cannot run here'), h('small', {}, local.reason ?? 'This device cannot run it.')],
    };
  }
  if (local?.state === 'failed' || view?.phase === 'error' || facts.error) {
    return { state: 'failed', parts: [label('Failed'), h('small', { class: 'error-text' }, local?.error ?? view?.message ?? facts.error ?? '')] };
  }
  if (!facts.online && local && !local.downloaded) {
    return { state: 'offline', parts: [label('Needs network'), h('small', {}, 'Not downloaded yet, so it cannot load offline.')] };
  }
  if (local?.requires.includes('prompt-api')) {
    // The browser's own model: nothing of the app's to fetch; the browser has it, or downloads it itself.
    return { state: 'available', parts: [label(local.downloaded ? 'In this browser' : 'Browser downloads it'), h('small', { 'data-testid': 'builtin-note' }, local.backendReason ?? '')] };
  }
  const stored = local?.downloaded ?? false;
  if (!stored && local?.partialBytes) {
    return { state: 'available', parts: [label('Partly downloaded'), h('small', { 'data-testid': 'partial-note' }, `${formatBytes(local.partialBytes)} kept; the download resumes from there`)] };
  }
  return {
    state: local ? 'available' : 'unknown',
    parts: [label(stored ? 'On disk' : 'Available'), h('small', {}, stored ? 'loads without network' : 'fetched on first load')],
  };
}

function progressText(view: LoadView | undefined): string {
  if (view?.total && view.fraction !== null) return `${formatBytes(view.loaded)} / ${formatBytes(view.total)} (${formatPercent(view.fraction)})`;
  if (view?.loaded) return `${formatBytes(view.loaded)} read${view.total ? '; setting up' : ' (sizes not sent by the server)'}…`;
  if (view?.fraction !== null && view?.fraction !== undefined) return formatPercent(view.fraction);
  return 'starting…';
}
