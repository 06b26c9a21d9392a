/**
 * Folds the engine's LoadProgress events into one view per model: bytes loaded over bytes known
 * (transformers.js reports per file), or web-llm's whole-load fraction and text.
 * Nothing is estimated: with no byte counts yet the bar stays indeterminate.
 * @module
 */
import type { LoadProgress } from '../client/index.ts';
import { formatBytes } from './format.ts';

export interface LoadView {
  readonly model: string;
  phase: 'loading' | 'ready' | 'error';
  loaded: number;
  /** Sum of the sizes of the files seen so far (0 until the first size is known). */
  total: number;
  /** 0..1, or null while unknown (indeterminate bar). */
  fraction: number | null;
  /** web-llm's stage text, or the file being fetched. */
  detail?: string;
  /** A download that was cut or resumed: bytes resumed, retries, and why the last attempt ended. */
  download?: string;
  device?: string;
  ms?: number;
  message?: string;
}

export function createLoadTracker(onChange: (view: LoadView, event: LoadProgress) => void) {
  const views = new Map<string, LoadView>();
  /** Per model, per file: bytes so far, and the size once it is known. */
  const files = new Map<string, Map<string, FileProgress>>();

  return {
    views: views as ReadonlyMap<string, LoadView>,
    handle(event: LoadProgress): void {
      let view = views.get(event.model);
      const starts = event.status === 'initiate' || ((event.status === 'progress' || event.status === 'stage') && view?.phase !== 'loading');
      if (starts) {
        view = { model: event.model, phase: 'loading', loaded: 0, total: 0, fraction: null };
        views.set(event.model, view);
        files.set(event.model, new Map());
      }
      if (!view) return;
      switch (event.status) {
        case 'progress':
          Object.assign(view, sumFiles(files.get(event.model)!, event), { detail: event.file });
          if (event.download) view.download = describeDownload(event.file, event.download);
          break;
        case 'stage':
          Object.assign(view, { fraction: event.fraction, detail: event.text });
          break;
        case 'ready':
          Object.assign(view, { phase: 'ready', fraction: 1, device: event.device, ms: event.ms, detail: undefined });
          break;
        case 'error':
          Object.assign(view, { phase: 'error', message: event.message });
          break;
      }
      onChange(view, event);
    },
  };
}

function describeDownload(file: string, { resumedFrom, retries, lastCut, ranges }: NonNullable<Extract<LoadProgress, { status: 'progress' }>['download']>): string {
  const parts = [file];
  if (resumedFrom > 0) parts.push(`resumed from ${formatBytes(resumedFrom)}`);
  if (retries > 0) parts.push(`${retries} ${retries === 1 ? 'retry' : 'retries'}${ranges ? '' : ' (the server does not resume: each starts over)'}`);
  if (lastCut) parts.push(`last cut: ${lastCut}`);
  return parts.join(' · ');
}

interface FileProgress {
  loaded: number;
  /** Undefined while the size is unknown. */
  size?: number;
  done: boolean;
}

/**
 * Bytes over sizes of the files in flight and done. transformers.js takes a file's size from Content-Length; without one (a compressing server sends
 * none) it reports `total` equal to the bytes so far, which would read as 100% all along. A total
 * that grows between reports therefore means "size unknown": the bar stays indeterminate until
 * those files finish. The adapter reports a finished file as 1/1: the file then weighs what it loaded.
 */
function sumFiles(perFile: Map<string, FileProgress>, event: Extract<LoadProgress, { status: 'progress' }>): Pick<LoadView, 'loaded' | 'total' | 'fraction'> {
  const previous = perFile.get(event.file);
  if (event.loaded === 1 && event.total === 1 && previous) {
    perFile.set(event.file, { loaded: previous.loaded, size: previous.loaded, done: true });
  } else if (!previous) {
    // A first report that already equals its total is either a one-chunk file or an unknown size; the next report tells.
    perFile.set(event.file, { loaded: event.loaded, size: event.total > 0 ? event.total : undefined, done: false });
  } else {
    const grew = previous.size !== undefined && event.total !== previous.size;
    perFile.set(event.file, { loaded: event.loaded, size: grew || previous.size === undefined ? undefined : event.total, done: false });
  }
  let loaded = 0;
  let total = 0;
  let unknown = false;
  let pending = false;
  for (const file of perFile.values()) {
    loaded += file.loaded;
    if (file.size === undefined) unknown = true;
    else total += file.size;
    if (!file.done) pending = true;
  }
  // Every file seen so far is done, yet the load goes on (more files, or the model being set up):
  // the whole is not known, so no percentage (a bar at 100% that then drops would mislead).
  const fraction = unknown || total === 0 || !pending ? null : Math.min(1, loaded / total);
  return { loaded, total: unknown ? 0 : total, fraction };
}
