/**
 * Upstream error responses, read from the bodies real servers send and passed on in either
 * flavour; the official SDKs read the result as they would the upstream's own.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { renderError } from '../gateway/error-answer.ts';
import { WIRES } from '../protocol/wires.ts';
import { readUpstreamFailure, toUpstreamError, type UpstreamFailure } from './upstream-errors.ts';

const URL_ = 'http://10.0.0.7:8000/v1';

/** A failure as the gateway answers it, in the caller's flavour (its descriptor renders the error). */
const renderUpstreamFailure = (failure: UpstreamFailure, flavour: 'openai' | 'anthropic', requestId: string) => renderError(toUpstreamError(failure, URL_), WIRES[flavour], requestId);

const json = (body: unknown, status: number, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('readUpstreamFailure', () => {
  const cases: [string, () => Response, number, string][] = [
    ['OpenAI', () => json({ error: { message: "This model's maximum context length is 8192 tokens.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } }, 400), 400, "This model's maximum context length is 8192 tokens."],
    ['vLLM', () => json({ error: { message: 'max_tokens must be at least 1, got 0.', type: 'BadRequestError', param: null, code: 400 } }, 400), 400, 'max_tokens must be at least 1, got 0.'],
    ['older vLLM', () => json({ object: 'error', message: 'The model `x` does not exist.', type: 'NotFoundError', param: null, code: 404 }, 404), 404, 'The model `x` does not exist.'],
    ['llama.cpp', () => json({ error: { code: 400, message: 'the request exceeds the available context size', type: 'exceed_context_size_error', n_prompt_tokens: 5000, n_ctx: 4096 } }, 400), 400, 'the request exceeds the available context size'],
    ['Ollama', () => json({ error: "model 'llama9' not found" }, 404), 404, "model 'llama9' not found"],
    ['Anthropic', () => json({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_1' }, 529), 529, 'Overloaded'],
    ['FastAPI validation', () => json({ detail: [{ loc: ['body', 'messages'], msg: 'Field required', type: 'missing' }] }, 422), 422, 'body.messages: Field required'],
    ['FastAPI string detail', () => json({ detail: 'Not authenticated' }, 401), 401, 'Not authenticated'],
    ['plain text', () => new Response('upstream connect error or disconnect/reset before headers', { status: 503 }), 503, 'upstream connect error or disconnect/reset before headers'],
    ['an HTML proxy page', () => new Response('<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>', { status: 502, headers: { 'content-type': 'text/html' } }), 502, '502 Bad Gateway'],
    ['HTML without a title', () => new Response('<!DOCTYPE html><body><p>Model is <b>loading</b></p></body>', { status: 503 }), 503, 'Model is loading'],
    ['JSON without a message', () => json({ status: 'failed' }, 500), 500, '{"status":"failed"}'],
  ];

  it.each(cases)('reads %s bodies: status kept, the URL named, then its message', async (_, response, status, own) => {
    const failure = await readUpstreamFailure(response(), URL_);
    expect(failure.status).toBe(status);
    expect(failure.message).toMatch(new RegExp(`^The upstream ${URL_} answered ${status}`));
    expect(failure.message.endsWith(`: ${own}`)).toBe(true);
  });

  it('keeps a string error code, not a numeric one', async () => {
    expect((await readUpstreamFailure(cases[0]![1](), URL_)).code).toBe('context_length_exceeded');
    expect((await readUpstreamFailure(cases[1]![1](), URL_)).code).toBeUndefined();
  });

  it('says so when the body is empty, naming the status text', async () => {
    const failure = await readUpstreamFailure(new Response(null, { status: 503, statusText: 'Service Unavailable' }), URL_);
    expect(failure).toEqual({ status: 503, message: `The upstream ${URL_} answered 503 Service Unavailable with no message.` });
  });

  it('keeps retry-after and x-should-retry', async () => {
    const failure = await readUpstreamFailure(json({ error: { message: 'slow down' } }, 429, { 'retry-after': '7', 'x-should-retry': 'true' }), URL_);
    expect(failure).toMatchObject({ status: 429, retryAfter: '7', shouldRetry: 'true' });
  });

  it('reads at most 64 KiB of an endless body and caps the message', async () => {
    let pulled = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 16 * 1024;
        controller.enqueue(new TextEncoder().encode('x'.repeat(16 * 1024)));
      },
      cancel() {
        cancelled = true;
      },
    });
    const failure = await readUpstreamFailure(new Response(endless, { status: 500 }), URL_);
    expect(pulled).toBeLessThanOrEqual(80 * 1024);
    expect(cancelled).toBe(true);
    expect(failure.message.length).toBeLessThan(2_200);
    expect(failure.message).toMatch(/x{2000}… \(cut\)$/);
  });
});

describe('renderUpstreamFailure', () => {
  const failure = (status: number, extra: Partial<UpstreamFailure> = {}): UpstreamFailure => ({ status, message: `The upstream ${URL_} answered ${status}: boom`, ...extra });

  it.each([
    [400, 'invalid_request_error'],
    [401, 'invalid_request_error'],
    [404, 'invalid_request_error'],
    [413, 'invalid_request_error'],
    [422, 'invalid_request_error'],
    [429, 'rate_limit_error'],
    [500, 'server_error'],
    [503, 'service_unavailable_error'],
    [529, 'server_error'],
  ])('renders %i in the OpenAI shape as %s, status kept', async (status, type) => {
    const response = renderUpstreamFailure(failure(status), 'openai', 'req_1');
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ error: { message: failure(status).message, type, param: null, code: null } });
  });

  it.each([
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [402, 'billing_error'],
    [403, 'permission_error'],
    [404, 'not_found_error'],
    [409, 'conflict_error'],
    [413, 'request_too_large'],
    [422, 'invalid_request_error'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [502, 'api_error'],
    [504, 'timeout_error'],
    [529, 'overloaded_error'],
  ])('renders %i in the Anthropic shape as %s, status kept', async (status, type) => {
    const response = renderUpstreamFailure(failure(status), 'anthropic', 'req_1');
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ type: 'error', error: { type, message: failure(status).message }, request_id: 'req_1' });
  });

  it('keeps retry advice and the OpenAI code, and never passes a non-error status as one', async () => {
    const advised = renderUpstreamFailure(failure(429, { retryAfter: '7', shouldRetry: 'false', code: 'insufficient_quota' }), 'openai', 'req_1');
    expect([advised.headers.get('retry-after'), advised.headers.get('x-should-retry')]).toEqual(['7', 'false']);
    expect(((await advised.json()) as { error: { code: string } }).error.code).toBe('insufficient_quota');
    const plain = renderUpstreamFailure(failure(500), 'anthropic', 'req_1');
    expect([plain.headers.get('retry-after'), plain.headers.get('x-should-retry')]).toEqual([null, null]);
    expect(renderUpstreamFailure(failure(302), 'openai', 'req_1').status).toBe(502);
  });
});

describe('the official SDKs reading a passed-on failure', () => {
  /** An upstream's response, read and rendered as the gateway would, served to the SDK by its fetch. */
  const via = (upstream: () => Response, flavour: 'openai' | 'anthropic'): typeof fetch => async () => renderUpstreamFailure(await readUpstreamFailure(upstream(), URL_), flavour, 'req_1');
  const openai = (upstream: () => Response) => new OpenAI({ baseURL: 'http://gateway.test/v1', apiKey: 'k', maxRetries: 0, fetch: via(upstream, 'openai') });
  const anthropic = (upstream: () => Response) => new Anthropic({ baseURL: 'http://gateway.test', apiKey: 'k', maxRetries: 0, fetch: via(upstream, 'anthropic') });
  const chat = (client: OpenAI) => client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
  const message = (client: Anthropic) => client.messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] });
  const caught = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('the call succeeded'), (e: unknown) => e);

  it.each([
    [400, OpenAI.BadRequestError],
    [401, OpenAI.AuthenticationError],
    [404, OpenAI.NotFoundError],
    [422, OpenAI.UnprocessableEntityError],
    [429, OpenAI.RateLimitError],
    [503, OpenAI.InternalServerError],
  ])('openai-node raises %i as its own class', async (status, errorClass) => {
    const error = (await caught(chat(openai(() => json({ error: { message: 'upstream says no', code: 'upstream_code' } }, status))))) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(errorClass);
    expect(error.status).toBe(status);
    expect(error.message).toBe(`${status} The upstream ${URL_} answered ${status}: upstream says no`);
    expect(error.code).toBe('upstream_code');
  });

  it.each([
    [400, Anthropic.BadRequestError, 'invalid_request_error'],
    [401, Anthropic.AuthenticationError, 'authentication_error'],
    [413, Anthropic.ContentTooLargeError, 'request_too_large'],
    [429, Anthropic.RateLimitError, 'rate_limit_error'],
    [504, Anthropic.GatewayTimeoutError, 'timeout_error'],
    [529, Anthropic.OverloadedError, 'overloaded_error'],
  ])('@anthropic-ai/sdk raises %i as its own class', async (status, errorClass, type) => {
    const upstream = () => new Response('upstream says no', { status, headers: { 'retry-after': '0' } });
    const error = (await caught(message(anthropic(upstream)))) as InstanceType<typeof Anthropic.APIError>;
    expect(error).toBeInstanceOf(errorClass);
    expect(error.status).toBe(status);
    expect(error.type).toBe(type);
    expect(error.apiMessage).toBe(`The upstream ${URL_} answered ${status}: upstream says no`);
    expect(error.message).toContain(error.apiMessage);
    expect(error.headers?.get('retry-after')).toBe('0');
  });
});
