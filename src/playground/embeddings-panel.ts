/**
 * The embeddings panel: several texts in, one `POST /embeddings` call, the cosine-similarity
 * matrix out as a heat map. `dimensions` (Matryoshka models) and `encoding_format` are sent as
 * chosen; base64 vectors are decoded here, as an app without the openai client would.
 * @module
 */
import { absoluteUrl, call, type RecordedRequest } from './api.ts';
import { field, h, required, announce } from './dom.ts';
import { errorView } from './error-view.ts';
import { formatMs } from './format.ts';
import { heatmap } from './heatmap.ts';
import type { ApiModel } from './model-list.ts';
import { createModelPicker } from './model-picker.ts';
import { cosineMatrix, toVector } from './similarity.ts';

const SAMPLE = ['The cat sat on the mat.', 'A kitten is resting on a rug.', 'Stock markets fell sharply today.', 'Investors sold shares as prices dropped.'];

export interface EmbeddingsPanelOptions {
  readonly baseUrl: string;
  readonly models: readonly ApiModel[];
  readonly onSettled: () => void;
}

export function createEmbeddingsPanel(options: EmbeddingsPanelOptions): void {
  const panel = required('#panel-embeddings');
  const embedModels = options.models.filter((m) => m.kind === 'embedding');
  const picker = createModelPicker('embed-model', options.models, 'embedding');
  const model = picker.select;
  const texts = h('textarea', { id: 'embed-texts', rows: 5, value: SAMPLE.join('\n') });
  const dimensions = h('input', { id: 'embed-dimensions', type: 'number', min: 1, step: 1, placeholder: 'native', inputmode: 'numeric' });
  const encoding = h('select', { id: 'embed-encoding' }, h('option', { value: 'float' }, 'float'), h('option', { value: 'base64' }, 'base64'));
  const compute = h('button', { type: 'submit', class: 'primary' }, 'Compute similarity');
  const status = h('p', { class: 'panel-status', role: 'status', 'data-testid': 'embed-status' });
  const result = h('div', { class: 'embed-result', 'data-testid': 'embed-result' });
  const dimsHint = h('small', { class: 'hint', id: 'embed-dimensions-hint' });
  dimensions.setAttribute('aria-describedby', dimsHint.id);

  const syncModel = () => {
    const info = embedModels.find((m) => m.id === model.value);
    dimensions.disabled = !info?.supportsDimensions;
    if (info?.dimensions) dimensions.max = String(info.dimensions);
    if (dimensions.disabled) dimensions.value = '';
    dimsHint.textContent = info?.supportsDimensions
      ? `Blank: all ${info.dimensions ?? ''}. Fewer keeps the first ones, renormalised (Matryoshka).`
      : `${info?.id ?? 'This model'} always returns ${info?.dimensions ?? 'its native'} dimensions.`;
  };
  model.addEventListener('change', syncModel);
  syncModel();

  const form = h(
    'form',
    { class: 'embed-form', 'aria-label': 'Compute embeddings' },
    h('div', { class: 'row' }, h('div', { class: 'picker' }, field('Model', model), picker.hint), h('div', { class: 'field' }, h('label', { for: dimensions.id }, 'Dimensions'), dimensions, dimsHint), field('encoding_format', encoding, 'base64 is decoded in this page.')),
    field('Texts', texts, 'One per line; each pair gets a cosine similarity.'),
    h('div', { class: 'actions' }, compute),
  );
  panel.append(h('h2', { class: 'sr-only' }, 'Embeddings'), form, status, result);
  result.append(h('p', { class: 'empty' }, 'The similarity matrix appears here.'));

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run();
  });

  async function run(): Promise<void> {
    const inputs = texts.value.split('\n').map((t) => t.trim()).filter(Boolean);
    if (inputs.length === 0) {
      status.textContent = 'Enter at least one text.';
      texts.focus();
      return;
    }
    const body: Record<string, unknown> = { model: model.value, input: inputs, encoding_format: encoding.value };
    if (dimensions.value.trim() !== '') body.dimensions = Number(dimensions.value);
    const request: RecordedRequest = { method: 'POST', url: absoluteUrl(options.baseUrl, '/embeddings'), headers: { 'content-type': 'application/json' }, body };
    compute.disabled = true;
    status.textContent = `Embedding ${inputs.length} texts with ${model.value}…`;
    try {
      const exchange = await call('embeddings', request);
      const response = JSON.parse(exchange.raw) as { data: { index: number; embedding: unknown }[]; usage?: { prompt_tokens?: number } };
      const vectors = [...response.data].sort((a, b) => a.index - b.index).map((d) => toVector(d.embedding));
      const ms = (exchange.endedAt ?? performance.now()) - exchange.startedAt;
      const dims = vectors[0]?.length ?? 0;
      result.replaceChildren(
        h(
          'p',
          { class: 'embed-summary', 'data-testid': 'embed-summary', 'data-dimensions': dims, 'data-encoding': String(encoding.value) },
          `${vectors.length} vectors × ${dims} dimensions · ${encoding.value}${encoding.value === 'base64' ? ' (decoded here)' : ''} · ${response.usage?.prompt_tokens ?? '?'} tokens · ${formatMs(ms)}`,
        ),
        heatmap(inputs, cosineMatrix(vectors)),
        h('p', { class: 'vector-peek mono' }, `#1 starts ${Array.from(vectors[0]?.slice(0, 6) ?? [], (v) => v.toFixed(3)).join(', ')}…`),
      );
      status.textContent = '';
      announce(`Similarity matrix of ${vectors.length} texts ready.`);
    } catch (error) {
      result.replaceChildren(errorView(error));
      status.textContent = '';
    } finally {
      compute.disabled = false;
      options.onSettled();
    }
  }
}
