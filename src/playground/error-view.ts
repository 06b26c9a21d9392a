/**
 * How an API failure is shown: the status and message in words, then the error body exactly as
 * the API sent it (either flavour's shape), since that body is what an app has to handle.
 * @module
 */
import { ApiError, errorMessage } from './api.ts';
import { h } from './dom.ts';

const NOT_CONTROLLED = 'The service worker may not control this page (a hard reload bypasses it): reload the page normally.';

export function errorView(error: unknown, title?: string): HTMLElement {
  if (error instanceof ApiError) {
    const type = errorType(error.body);
    const heading = title ?? `The API answered ${error.status}${type ? ` (${type})` : ''}`;
    // Both flavours answer errors in JSON: anything else came from the web server, not the local API.
    const notLocal = typeof error.body === 'string';
    return h(
      'div',
      { class: 'error-view', 'data-testid': 'error-view' },
      h('strong', {}, heading),
      h('p', {}, notLocal ? 'This answer did not come from the local API.' : (errorMessage(error.body) ?? 'No message in the body.')),
      notLocal && h('p', { class: 'hint' }, NOT_CONTROLLED),
      h('pre', { class: 'code small', 'aria-label': 'Error body', tabindex: 0 }, notLocal ? String(error.body).slice(0, 2000) : JSON.stringify(error.body, null, 2)),
    );
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return h(
    'div',
    { class: 'error-view', 'data-testid': 'error-view' },
    h('strong', {}, title ?? 'No answer from the local API'),
    h('p', {}, message),
    h('p', { class: 'hint' }, NOT_CONTROLLED),
  );
}

function errorType(body: unknown): string | undefined {
  const inner = typeof body === 'object' && body !== null ? (body as { error?: { type?: unknown; code?: unknown } }).error : undefined;
  const type = inner?.type ?? inner?.code;
  return typeof type === 'string' ? type : undefined;
}
