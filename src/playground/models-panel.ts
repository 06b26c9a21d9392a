/**
 * The models panel: every model `GET /models` lists, with its engine, and from its `local` state
 * (the engine's word, the same from every tab) the backend, size on disk and state; Load with a
 * real progress bar (bytes and percent from the engine's load events), Delete for downloaded
 * files, the storage quota, and a restart that frees the models' memory.
 * @module
 */
import { deleteGroups, listCachedModels, type CachedGroup } from '../engines/files/index.ts';
import { announce, h, required } from './dom.ts';
import type { EngineControl } from './engine-control.ts';
import { formatBytes } from './format.ts';
import type { LoadView } from './load-progress.ts';
import { fetchLocalStates, type ApiLocalState, type ApiModel } from './model-list.ts';
import { cachedFilesOf, needsOf } from './model-groups.ts';
import { describeState } from './model-state.ts';
import { storageFigures } from './storage-figures.ts';

export interface ModelsPanelOptions {
  readonly baseUrl: string;
  /** As first listed; their `local` states are read again on each refresh. */
  readonly models: readonly ApiModel[];
  readonly control: EngineControl;
  /** The tracker's current views (progress survives re-renders). */
  readonly loads: ReadonlyMap<string, LoadView>;
  /** Told, on each refresh, which CPU engine runs the WASM models, on how many threads and why. */
  readonly onCpu?: (cpu: NonNullable<ApiLocalState['cpu']>) => void;
}

interface Row {
  readonly model: ApiModel;
  readonly tr: HTMLTableRowElement;
  readonly backend: HTMLElement;
  readonly disk: HTMLElement;
  readonly state: HTMLElement;
  readonly load: HTMLButtonElement;
  readonly remove: HTMLButtonElement;
  /** Its files in the engines' caches, as the engine groups them: what Delete removes. */
  groups: CachedGroup[];
  local?: ApiLocalState;
  /** The Delete button waits for a second press before deleting. */
  confirmTimer?: number;
}

const ENGINE_NAMES: Record<string, string> = { transformers: 'transformers.js', webllm: 'WebLLM', remote: 'remote server' };
const BACKEND_NAMES: Record<string, string> = { webgpu: 'WebGPU', wasm: 'WASM', cpu: 'CPU' };
const REQUIREMENT_NAMES: Record<string, string> = { webgpu: 'WebGPU', 'shader-f16': 'shader-f16', 'prompt-api': 'a browser model' };

export function createModelsPanel(options: ModelsPanelOptions) {
  const panel = required('#panel-models');
  const storageText = h('p', { class: 'storage-text', 'data-testid': 'storage-text' }, 'Measuring storage…');
  const storageMeter = h('meter', { min: 0, max: 1, value: 0, 'aria-label': 'Storage used by this site' });
  const persist = h('button', { type: 'button', class: 'ghost small', hidden: true }, 'Keep downloads (persistent storage)');
  const hostNote = h('p', { class: 'notice', role: 'status', 'data-testid': 'host-note', hidden: true });
  const offlineNote = h('p', { class: 'notice notice-warn', hidden: true }, 'You are offline: only models already on this device (bundled or downloaded) can load.');
  const refreshButton = h('button', { type: 'button', class: 'ghost' }, 'Refresh');
  const restart = h('button', { type: 'button', class: 'ghost' }, 'Restart engine (frees model memory)');
  const others = h('div', { class: 'other-cache' });
  const tbody = h('tbody');
  // web-llm lists 160 models: the table shows the featured ones and those on this device, unless asked for all.
  const extras = options.models.filter(isExtra).length;
  const showAll = h('input', { type: 'checkbox', id: 'models-show-all' });
  const showAllLabel = h('label', { class: 'toggle', for: 'models-show-all', hidden: extras === 0 }, showAll, ` Show all ${options.models.length} models (else the featured ones, and those downloaded or loaded)`);

  const rows = new Map<string, Row>();
  for (const model of options.models) {
    const backend = h('td', { 'data-label': 'Backend' });
    const disk = h('td', { 'data-label': 'On disk' });
    const state = h('td', { class: 'state-cell', 'data-label': 'State' });
    const load = h('button', { type: 'button', class: 'small', 'aria-label': `Load ${model.id}` }, 'Load');
    const remove = h('button', { type: 'button', class: 'small danger-ghost', hidden: true, 'aria-label': `Delete the downloaded files of ${model.id}` }, 'Delete');
    const size = model.kind === 'embedding' ? `${model.dimensions ?? '?'} dims` : `${model.contextWindow ?? '?'} ctx`;
    const tr = h(
      'tr',
      { 'data-model': model.id },
      h(
        'th',
        { scope: 'row' },
        h('span', { class: 'model-id' }, model.id),
        h('small', {}, `${model.kind} · ${size} · ${ENGINE_NAMES[model.engine] ?? model.engine}`),
        needsOf(model) ? h('small', { class: 'model-needs', 'data-testid': 'model-needs' }, `needs ${needsOf(model)}`) : null,
      ),
      backend,
      disk,
      state,
      h('td', { class: 'row-actions' }, load, remove),
    );
    const row: Row = { model, tr, backend, disk, state, load, remove, groups: [], local: model.local };
    load.addEventListener('click', () => void loadModel(model.id));
    remove.addEventListener('click', () => void removeModel(row));
    rows.set(model.id, row);
    tbody.append(tr);
  }

  panel.append(
    h('h2', { class: 'sr-only' }, 'Models'),
    hostNote,
    offlineNote,
    h('div', { class: 'storage' }, h('div', { class: 'storage-figures' }, storageText, storageMeter), persist),
    showAllLabel,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'models', 'data-testid': 'models-table' },
        h('caption', { class: 'sr-only' }, 'Models offered by the local API'),
        h('thead', {}, h('tr', {}, ['Model', 'Backend', 'On disk', 'State', 'Actions'].map((c) => h('th', { scope: 'col' }, c)))),
        tbody,
      ),
    ),
    h('div', { class: 'actions' }, refreshButton, restart),
    others,
  );

  refreshButton.addEventListener('click', () => void refresh());
  showAll.addEventListener('change', () => rows.forEach(renderRow));
  restart.addEventListener('click', () => void restartEngine());
  persist.addEventListener('click', () => void askPersist());
  addEventListener('online', () => void refresh());
  addEventListener('offline', () => void refresh());

  async function loadModel(id: string): Promise<void> {
    const row = rows.get(id);
    if (!row) return;
    row.load.disabled = true;
    try {
      await options.control.load(id);
      announce(`${id} is loaded.`);
    } catch (error) {
      const message = (error as { message?: unknown })?.message;
      row.state.dataset.error = typeof message === 'string' ? message : String(error);
      announce(`${id} could not be loaded.`);
    } finally {
      await refresh();
    }
  }

  async function removeModel(row: Row): Promise<void> {
    if (row.confirmTimer === undefined) {
      // First press: ask again, with the size, instead of a modal dialog.
      row.remove.textContent = `Delete ${formatBytes(bytesOf(row))}?`;
      row.remove.setAttribute('aria-label', `Delete the downloaded files of ${row.model.id} (${formatBytes(bytesOf(row))}): press again to confirm`);
      row.remove.classList.add('confirming');
      announce(`Press again to delete ${formatBytes(bytesOf(row))} of ${row.model.id}.`);
      row.confirmTimer = window.setTimeout(() => resetRemove(row), 4000);
      return;
    }
    resetRemove(row);
    await deleteGroups(row.groups);
    const inMemory = row.local?.state === 'loaded' ? ' It stays loaded in memory until the engine restarts.' : '';
    announce(`Deleted the downloaded files of ${row.model.id}.${inMemory}`);
    await refresh();
    row.load.focus();
  }

  function resetRemove(row: Row): void {
    clearTimeout(row.confirmTimer);
    row.confirmTimer = undefined;
    row.remove.textContent = 'Delete';
    row.remove.setAttribute('aria-label', `Delete the downloaded files of ${row.model.id}`);
    row.remove.classList.remove('confirming');
  }

  async function restartEngine(): Promise<void> {
    restart.disabled = true;
    try {
      await options.control.restart();
      announce('The engine restarted: models load again on their next use.');
    } catch (error) {
      hostNote.hidden = false;
      hostNote.textContent = `Could not restart: ${(error as Error)?.message ?? String(error)}`;
    } finally {
      restart.disabled = false;
      await refresh();
    }
  }

  async function askPersist(): Promise<void> {
    const granted = await navigator.storage?.persist?.().catch(() => false);
    announce(granted ? 'The browser will keep downloaded models.' : 'The browser declined; it may still evict models under storage pressure.');
    await refresh();
  }

  const bytesOf = (row: Row) => row.local?.sizeBytes ?? 0;

  let refreshing: Promise<void> | undefined;
  let again = false;
  /** Re-reads states, caches and storage; calls made while one runs coalesce into one more. */
  async function refresh(): Promise<void> {
    if (refreshing) {
      again = true;
      return refreshing;
    }
    refreshing = (async () => {
      do {
        again = false;
        // States come from the API (any tab's engine answers it); the caches are read here too,
        // for Delete and for the files no listed model uses; the relay only tells who hosts.
        const [states, groups, storage, relayed] = await Promise.all([
          fetchLocalStates(options.baseUrl),
          listCachedModels().catch(() => []),
          storageFigures().catch(() => ({})),
          options.control.isHost() ? Promise.resolve([]) : options.control.status().catch(() => null),
        ]);
        // A failed read keeps the last known state rather than blanking the table.
        if (states) for (const row of rows.values()) row.local = states.get(row.model.id);
        // Grouped by the source each state names, as the engine groups them to count their size.
        const files = cachedFilesOf([...rows.values()].map((row) => ({ ...row.model, local: row.local })), groups);
        for (const row of rows.values()) {
          row.groups = files.byModel.get(row.model.id) ?? [];
          renderRow(row);
        }
        renderOthers(files.others);
        const cpu = [...rows.values()].find((row) => row.local?.cpu)?.local?.cpu;
        if (cpu) options.onCpu?.(cpu);
        renderStorage(storage);
        hostNote.hidden = options.control.isHost();
        hostNote.textContent = relayed === null
          ? 'Another tab hosts the engine and does not relay loads: models load there on first use; open the playground there, or close it so this tab takes over.'
          : 'Another playground tab hosts the engine: loads run there and their progress is shown here.';
        offlineNote.hidden = navigator.onLine;
      } while (again);
    })().finally(() => (refreshing = undefined));
    return refreshing;
  }

  function renderRow(row: Row): void {
    const { model, local } = row;
    const view = options.loads.get(model.id);
    const bytes = bytesOf(row);
    row.backend.textContent = model.remote ? 'server' : backendText(local);
    // Why it cannot run here, or why this backend (auto passes over a software WebGPU adapter).
    const why = local && !local.runnable ? local.reason : local?.backendReason;
    if (why) row.backend.title = why;
    else row.backend.removeAttribute('title');
    row.backend.dataset.reason = why ?? '';
    row.disk.replaceChildren(model.remote ? h('span', { class: 'muted' }, '—') : local === undefined ? h('span', { class: 'muted' }, '…') : bytes > 0 ? h('span', {}, formatBytes(bytes)) : h('span', { class: 'muted' }, 'not cached'));
    // Delete removes what the engines' caches hold of it, in the same grouping the size counts.
    row.remove.hidden = bytes === 0 || row.groups.length === 0;
    if (row.remove.hidden) resetRemove(row);

    const { state, parts } = describeState({ model, local, view, online: navigator.onLine, error: row.state.dataset.error });
    row.tr.dataset.state = state;
    row.tr.hidden = !showAll.checked && isExtra(model) && !onDevice(local);
    row.state.replaceChildren(...parts);
    // A remote model has nothing to load on this device.
    row.load.hidden = state === 'remote';
    row.load.disabled = state === 'loading' || state === 'loaded' || state === 'needs-webgpu' || state === 'unsupported' || state === 'offline';
    row.load.textContent = state === 'failed' ? 'Retry' : 'Load';
    row.load.setAttribute('aria-label', `${row.load.textContent} ${model.id}`);
  }

  function renderOthers(groups: readonly CachedGroup[]): void {
    others.replaceChildren();
    if (groups.length === 0) return;
    others.append(
      h('h3', {}, 'Other downloaded files'),
      h('p', { class: 'muted' }, 'Files in the engines’ caches that no listed model uses (older versions, other apps on this origin).'),
      h(
        'ul',
        {},
        groups.map((group) =>
          h(
            'li',
            {},
            h('span', { class: 'mono' }, group.label),
            ` · ${formatBytes(group.bytes)} · ${ENGINE_NAMES[group.engine] ?? group.engine} `,
            h('button', { type: 'button', class: 'small danger-ghost', onclick: () => void deleteGroups([group]).then(refresh) }, 'Delete'),
          ),
        ),
      ),
    );
  }

  function renderStorage(storage: Awaited<ReturnType<typeof storageFigures>>): void {
    if (storage.usage === undefined || storage.quota === undefined) {
      storageText.textContent = 'This browser does not report its storage quota.';
      storageMeter.hidden = true;
      return;
    }
    storageMeter.max = storage.quota;
    storageMeter.value = storage.usage;
    storageText.textContent = `Storage: ${formatBytes(storage.usage)} used of ${formatBytes(storage.quota)} available to this site${storage.persisted ? ' · kept (persistent)' : ''}.`;
    persist.hidden = storage.persisted !== false || !navigator.storage?.persist;
  }

  return {
    refresh,
    load: loadModel,
    /** A progress event: repaint just that row (events come many times a second). */
    onLoad(view: LoadView): void {
      const row = rows.get(view.model);
      if (!row) return;
      if (view.phase === 'loading') delete row.state.dataset.error;
      // The engine's own word: no need to wait for the next state read to show it.
      if (view.phase === 'ready' && row.local) row.local = { ...row.local, state: 'loaded' };
      renderRow(row);
      if (view.phase !== 'loading') void refresh();
    },
  };
}

/** One of web-llm's many models under its own id: listed on demand. */
const isExtra = (model: ApiModel) => model.engine === 'webllm' && !model.featured;
const onDevice = (local: ApiLocalState | undefined) => local !== undefined && (local.downloaded || local.sizeBytes > 0 || local.state !== 'available');

/** "WASM", "WebGPU", or what it would need ("needs WebGPU") when it cannot run here. */
function backendText(local: ApiLocalState | undefined): string {
  if (!local) return '…';
  if (local.runnable) return local.backend ? (BACKEND_NAMES[local.backend] ?? local.backend) : local.requires.includes('prompt-api') ? 'Browser' : '—';
  const needs = local.requires.map((r) => REQUIREMENT_NAMES[r] ?? r).join(' + ');
  return needs ? `needs ${needs}` : 'cannot run here';
}

export type ModelsPanel = ReturnType<typeof createModelsPanel>;
