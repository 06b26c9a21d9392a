/**
 * Calls to the API as any app would make them: plain `fetch` to the base URL, SSE read off the
 * response body. Every call is recorded as an Exchange (the exact request, the raw response and
 * the parsed events) and published, so the inspector can show the last one as it streams.
 * @module
 */
import { createSSEParser, type SSEEvent } from '../core/sse.ts';

export type CallKind = 'chat' | 'messages' | 'responses' | 'conversations' | 'embeddings' | 'models';

export interface RecordedRequest {
  readonly method: 'GET' | 'POST';
  /** Absolute, so snippets copied from the inspector run anywhere on this origin. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON body, as an object (sent as `JSON.stringify(body)`). */
  readonly body?: unknown;
}

export interface Exchange {
  readonly kind: CallKind;
  readonly request: RecordedRequest;
  /** `performance.now()` when the fetch started. */
  readonly startedAt: number;
  status?: number;
  statusText?: string;
  responseHeaders: [string, string][];
  /** The response body as received so far, byte for byte decoded (SSE included). */
  raw: string;
  /** Parsed SSE events, for streamed responses. */
  readonly events: SSEEvent[];
  endedAt?: number;
  outcome: 'pending' | 'ok' | 'error' | 'aborted' | 'network';
  /** Why a call failed without an API error body (network failure). */
  note?: string;
}

/** The API answered with an error status: `body` is its JSON error body (or text). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly body: unknown;
  readonly exchange: Exchange;
  constructor(status: number, body: unknown, exchange: Exchange) {
    super(errorMessage(body) ?? `HTTP ${status}`);
    this.status = status;
    this.body = body;
    this.exchange = exchange;
  }
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Each SSE event, as soon as its blank line arrives. */
  readonly onEvent?: (event: SSEEvent, exchange: Exchange) => void;
}

type Listener = (exchange: Exchange) => void;
const listeners = new Set<Listener>();

/** Called when a call starts and each time it receives something (the inspector throttles). */
export function onExchange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
const publish = (exchange: Exchange) => listeners.forEach((listener) => listener(exchange));

export function absoluteUrl(baseUrl: string, path: string): string {
  return new URL(`${baseUrl.replace(/\/$/, '')}${path}`, location.href).href;
}

/**
 * Sends one request. Resolves with the finished exchange (also when aborted: `outcome` says so),
 * rejects with ApiError on an error status, or with the fetch error when nothing answered.
 */
export async function call(kind: CallKind, request: RecordedRequest, options: CallOptions = {}): Promise<Exchange> {
  const exchange: Exchange = { kind, request, startedAt: performance.now(), responseHeaders: [], raw: '', events: [], outcome: 'pending' };
  publish(exchange);
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: options.signal,
    });
    exchange.status = response.status;
    exchange.statusText = response.statusText;
    exchange.responseHeaders = [...response.headers];
    publish(exchange);
    const streamed = response.ok && (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
    if (streamed && response.body) await readEvents(response.body, exchange, options);
    else exchange.raw = await response.text();
    exchange.endedAt = performance.now();
    if (!response.ok) {
      exchange.outcome = 'error';
      throw new ApiError(response.status, parseBody(exchange.raw), exchange);
    }
    exchange.outcome = 'ok';
    return exchange;
  } catch (error) {
    exchange.endedAt ??= performance.now();
    if (error instanceof ApiError) throw error;
    if (options.signal?.aborted) {
      exchange.outcome = 'aborted';
      return exchange;
    }
    exchange.outcome = 'network';
    exchange.note = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw error;
  } finally {
    publish(exchange);
  }
}

async function readEvents(body: ReadableStream<Uint8Array>, exchange: Exchange, options: CallOptions): Promise<void> {
  const parser = createSSEParser();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  // Aborting the fetch errors the body, but a reader parked in read() is released sooner by cancel().
  const cancel = () => void reader.cancel().catch(() => {});
  options.signal?.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      exchange.raw += text;
      for (const event of parser.feed(text)) {
        exchange.events.push(event);
        options.onEvent?.(event, exchange);
      }
      publish(exchange);
    }
    exchange.raw += decoder.decode();
  } finally {
    options.signal?.removeEventListener('abort', cancel);
  }
  if (options.signal?.aborted) throw options.signal.reason;
}

export function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The message of any flavour's error body: OpenAI `{error:{message}}`, Anthropic
 * `{type:'error', error:{message}}`, or a Responses stream's `error` event `{type:'error', message}`.
 */
export function errorMessage(body: unknown): string | undefined {
  if (typeof body === 'object' && body !== null && 'error' in body) {
    const inner = (body as { error: unknown }).error;
    if (typeof inner === 'object' && inner !== null && 'message' in inner && typeof inner.message === 'string') return inner.message;
  }
  if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string') return body.message;
  return typeof body === 'string' && body ? body.slice(0, 300) : undefined;
}
