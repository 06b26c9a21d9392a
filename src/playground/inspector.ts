/**
 * The request inspector: the last call exactly as sent (method, URL, headers with keys redacted,
 * JSON body) and as received (status, headers, the raw body with SSE events verbatim), updated
 * while it streams, plus copyable snippets that repeat it.
 * @module
 */
import { onExchange, type Exchange, type RecordedRequest } from './api.ts';
import { announce, h, required } from './dom.ts';
import { formatMs, prettyJson } from './format.ts';
import { redactHeaders } from './redact-headers.ts';
import { snippetsFor, type Snippet } from './snippets.ts';

export function createInspector(): void {
  const root = required('#inspector-body');
  root.append(h('p', { class: 'empty' }, 'No call yet. Send a chat message or compute embeddings.'));
  let shown: Exchange | undefined;
  let snippet: Snippet['id'] = 'fetch';
  let frame = 0;
  // Pretty JSON reads better; unticked, bodies show exactly the bytes sent and received.
  let pretty = true;
  let view: { summary: HTMLElement; status: HTMLElement; headers: HTMLElement; raw: HTMLElement } | undefined;

  onExchange((exchange) => {
    if (exchange !== shown) {
      shown = exchange;
      view = render(exchange);
    }
    // Streams publish per chunk: repaint at most once a frame.
    if (!frame) frame = requestAnimationFrame(() => ((frame = 0), update()));
  });

  function update(): void {
    if (!shown || !view) return;
    const x = shown;
    view.summary.replaceChildren(...summary(x));
    view.status.textContent = x.status === undefined ? (x.outcome === 'network' ? `No response: ${x.note ?? ''}` : 'Waiting for the response…') : `HTTP ${x.status} ${x.statusText ?? ''}`.trim();
    view.headers.textContent = x.responseHeaders.map(([k, v]) => `${k}: ${v}`).join('\n');
    const streamed = x.events.length > 0;
    view.raw.textContent = streamed || !pretty ? x.raw : prettyJson(x.raw);
    root.dataset.outcome = x.outcome;
  }

  function render(x: Exchange): NonNullable<typeof view> {
    // Keys are shown redacted, here and in the snippets that repeat the call.
    const request = { ...x.request, headers: redactHeaders(x.request.headers) };
    const path = new URL(request.url).pathname;
    const sent = [`${request.method} ${path}`, ...Object.entries(request.headers).map(([k, v]) => `${k}: ${v}`)].join('\n');
    const body = request.body === undefined ? '' : `\n\n${pretty ? JSON.stringify(request.body, null, 2) : JSON.stringify(request.body)}`;
    const toggle = h('input', { type: 'checkbox', id: 'inspector-pretty', checked: pretty });
    toggle.addEventListener('change', () => {
      pretty = toggle.checked;
      view = render(x);
      update();
      document.getElementById('inspector-pretty')?.focus();
    });
    const parts = {
      summary: h('p', { class: 'inspector-summary', 'data-testid': 'inspector-summary' }),
      status: h('p', { class: 'mono status-line' }),
      headers: h('pre', { class: 'code small', tabindex: 0, 'aria-label': 'Response headers' }),
      raw: h('pre', { class: 'code raw', tabindex: 0, 'aria-label': 'Raw response body', 'data-testid': 'inspector-raw' }),
    };
    root.replaceChildren(
      parts.summary,
      h('label', { class: 'toggle', for: 'inspector-pretty' }, toggle, ' Pretty-print JSON bodies'),
      h('h3', {}, 'Request'),
      h('pre', { class: 'code', tabindex: 0, 'aria-label': 'Request as sent', 'data-testid': 'inspector-request' }, sent + body),
      h('h3', {}, 'Response'),
      parts.status,
      h('details', {}, h('summary', {}, 'Headers'), parts.headers),
      parts.raw,
      snippetsView(x.kind, request),
    );
    return parts;
  }

  function snippetsView(kind: Exchange['kind'], request: RecordedRequest): HTMLElement {
    const snippets = snippetsFor(kind, request);
    const code = h('pre', { class: 'code snippet', tabindex: 0, 'data-testid': 'snippet-code' });
    const buttons = snippets.map((s) =>
      h('button', { type: 'button', class: 'segment', 'aria-pressed': String(s.id === snippet), 'data-snippet': s.id, onclick: () => select(s.id) }, s.label),
    );
    const select = (id: Snippet['id']) => {
      snippet = id;
      code.textContent = snippets.find((s) => s.id === id)!.code;
      buttons.forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.snippet === id)));
    };
    const copy = h('button', { type: 'button', class: 'ghost', onclick: () => void copyText(code, copy) }, 'Copy');
    select(snippet);
    return h(
      'section',
      { class: 'snippets', 'aria-label': 'Code that repeats this call' },
      h('div', { class: 'snippet-bar' }, h('h3', {}, 'Repeat it'), h('div', { class: 'segmented', role: 'group', 'aria-label': 'Snippet language' }, buttons), copy),
      code,
    );
  }
}

function summary(x: Exchange): (string | HTMLElement)[] {
  const path = new URL(x.request.url).pathname;
  const tone = x.outcome === 'ok' ? 'ok' : x.outcome === 'pending' ? 'pending' : x.outcome === 'aborted' ? 'warn' : 'error';
  const label = x.outcome === 'pending' ? (x.status ? 'receiving' : 'sent') : x.outcome === 'aborted' ? 'stopped by you' : x.outcome === 'network' ? 'no response' : String(x.status);
  const time = x.endedAt === undefined ? '' : ` · ${formatMs(x.endedAt - x.startedAt)}`;
  const events = x.events.length ? ` · ${x.events.length} SSE events` : '';
  return [h('span', { class: `badge badge-${tone}` }, label), ` ${x.request.method} ${path}${time}${events}`];
}

async function copyText(code: HTMLElement, button: HTMLButtonElement): Promise<void> {
  try {
    await navigator.clipboard.writeText(code.textContent ?? '');
    button.textContent = 'Copied';
    announce('Snippet copied to the clipboard.');
  } catch {
    // No clipboard permission: select the code so Ctrl+C / ⌘C copies it.
    getSelection()?.selectAllChildren(code);
    code.focus();
    button.textContent = 'Selected: press Ctrl+C';
  }
  setTimeout(() => (button.textContent = 'Copy'), 2000);
}
