/**
 * The playground page: starts the local API in this page, then builds the panels on top of it.
 * Panels talk to the API only through `fetch(base_url + …)`, as an app would; model management
 * (load, progress, restart) uses the runtime's page handle and Cache Storage.
 *
 * URL parameters: `?device=auto|webgpu|wasm` (transformers.js backend, default auto) and
 * `?preload=none` (do not load the bundled default models at start).
 * @module
 */
import './styles.css';
import { startInference, type LoadProgress } from '../client/index.ts';
import { createChatPanel } from './chat-panel.ts';
import { h, required } from './dom.ts';
import { createEmbeddingsPanel } from './embeddings-panel.ts';
import { createEngineControl } from './engine-control.ts';
import { errorView } from './error-view.ts';
import { createFigures } from './figures.ts';
import { probeGpu, type DeviceChoice } from './gpu-info.ts';
import { createInspector } from './inspector.ts';
import { createLoadTracker, type LoadView } from './load-progress.ts';
import { DEFAULT_MODELS, fetchModels } from './model-list.ts';
import { createModelsPanel } from './models-panel.ts';
import { createTabs } from './tabs.ts';

const params = new URLSearchParams(location.search);
const device: DeviceChoice = (['webgpu', 'wasm'] as const).find((d) => d === params.get('device')) ?? 'auto';
const preload = params.get('preload') !== 'none';

const engineStatus = required('#engine-status');
const figures = createFigures();
createInspector();
createTabs();
const gpu = probeGpu();
void gpu.then((report) => figures.backend(report, device));

const loadListeners = new Set<(view: LoadView) => void>();
const tracker = createLoadTracker((view, event) => {
  loadListeners.forEach((listener) => listener(view));
  if (event.status === 'ready') figures.load(event.model, event.ms, event.device);
});

let relay: (event: LoadProgress) => void = () => {};
/** Set once the models panel exists: hosting moves between tabs when one closes. */
let refreshModels: () => void = () => {};
const inference = startInference({
  engine: { device },
  onProgress: (event) => relay(event),
  onHostChange: () => {
    showEngine();
    refreshModels();
  },
});
const engine = createEngineControl(inference, (event) => tracker.handle(event));
relay = engine.relayProgress;

function showEngine(): void {
  void inference.then((inf) => {
    const where = inf.isHost ? 'the engine runs in this tab' : 'the engine runs in another tab of this site';
    engineStatus.dataset.state = navigator.onLine ? 'ready' : 'offline';
    engineStatus.textContent = `Local API ready at ${inf.baseUrl} · ${where}${navigator.onLine ? '' : ' · offline'}`;
  });
}
addEventListener('online', showEngine);
addEventListener('offline', showEngine);

async function main(): Promise<void> {
  let inf;
  try {
    inf = await inference;
  } catch (error) {
    engineStatus.dataset.state = 'error';
    engineStatus.textContent = 'The local API could not start.';
    required('#panel-chat').append(errorView(error, 'The local API could not start'));
    return;
  }
  showEngine();
  let models;
  try {
    models = await fetchModels(inf.baseUrl);
  } catch (error) {
    engineStatus.dataset.state = 'error';
    required('#panel-chat').append(errorView(error, 'Could not list the models'));
    return;
  }
  const modelsPanel = createModelsPanel({ baseUrl: inf.baseUrl, models, control: engine.control, loads: tracker.views, onCpu: (cpu) => figures.cpu(cpu) });
  const refresh = () => void modelsPanel.refresh();
  refreshModels = refresh;
  const chat = createChatPanel({ baseUrl: inf.baseUrl, models, figures, onSettled: refresh });
  createEmbeddingsPanel({ baseUrl: inf.baseUrl, models, onSettled: refresh });
  loadListeners.add((view) => modelsPanel.onLoad(view));
  loadListeners.add((view) => chat.onLoad(view));
  await modelsPanel.refresh();
  if (preload && inf.isHost) {
    // The bundled defaults are small and offline: loading them now keeps load time out of the first reply.
    for (const id of [DEFAULT_MODELS.chat, DEFAULT_MODELS.embedding]) if (models.some((m) => m.id === id)) void modelsPanel.load(id);
  }
  document.body.dataset.ready = 'true';
}

void main().catch((error: unknown) => {
  engineStatus.dataset.state = 'error';
  engineStatus.textContent = `The playground failed: ${error instanceof Error ? error.message : String(error)}`;
  document.body.append(h('p', { class: 'notice notice-error' }, engineStatus.textContent));
});
