import { describe, expect, it } from 'vitest';
import { GatewayError, type GatewayErrorCode, isGatewayError, STATUS_BY_CODE } from './errors.ts';

const EXPECTED_STATUS: Record<GatewayErrorCode, number> = {
  invalid_request: 400,
  context_length_exceeded: 400,
  authentication: 401,
  permission: 403,
  not_found: 404,
  resource_not_found: 404,
  model_not_found: 404,
  method_not_allowed: 405,
  request_too_large: 413,
  queue_full: 429,
  internal: 500,
  model_unavailable: 503,
  engine_unavailable: 503,
  device_lost: 503,
  insufficient_storage: 507,
  upstream_unreachable: 502,
  upstream_timeout: 504,
  upstream_error: 502,
  aborted: 499,
};

describe('GatewayError', () => {
  it('covers exactly the expected codes', () => {
    expect(Object.keys(STATUS_BY_CODE).sort()).toEqual(Object.keys(EXPECTED_STATUS).sort());
  });

  it.each(Object.entries(EXPECTED_STATUS) as [GatewayErrorCode, number][])('maps %s to HTTP %i', (code, status) => {
    expect(new GatewayError(code, 'x').status).toBe(status);
  });

  it('is an Error named GatewayError carrying message, param and retryAfter', () => {
    const error = new GatewayError('invalid_request', 'bad field', { param: 'messages[0]', retryAfter: 2 });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('GatewayError');
    expect(error.message).toBe('bad field');
    expect(error.param).toBe('messages[0]');
    expect(error.retryAfter).toBe(2);
  });

  it('leaves param and retryAfter undefined when not given', () => {
    const error = new GatewayError('internal', 'x');
    expect(error.param).toBeUndefined();
    expect(error.retryAfter).toBeUndefined();
    expect(error.toJSON()).toEqual({ name: 'GatewayError', code: 'internal', message: 'x', param: undefined, retryAfter: undefined });
  });

  it('keeps a cause', () => {
    const cause = new Error('root');
    expect(new GatewayError('internal', 'x', { cause }).cause).toBe(cause);
  });

  it.each([
    ['queue_full', true],
    ['internal', true],
    ['engine_unavailable', true],
    ['device_lost', true],
    ['upstream_unreachable', true],
    ['upstream_timeout', false],
    ['insufficient_storage', false],
    ['invalid_request', false],
    ['authentication', false],
    ['model_not_found', false],
    ['model_unavailable', false],
    ['request_too_large', false],
  ] as [GatewayErrorCode, boolean][])('says %s is retryable: %s', (code, retryable) => {
    expect(new GatewayError(code, 'x').retryable).toBe(retryable);
  });

  it('passes an upstream’s error status on, and its retry advice, as it came', () => {
    const answer = (status: number, shouldRetry?: string) => new GatewayError('upstream_error', 'x', { upstream: { status, ...(shouldRetry !== undefined ? { shouldRetry } : {}) } });
    expect([answer(422).status, answer(529).status, answer(307).status, answer(200).status]).toEqual([422, 529, 502, 502]);
    expect([answer(422).retryable, answer(429).retryable, answer(503).retryable, answer(503, 'false').retryable, answer(400, 'true').retryable]).toEqual([false, true, true, false, true]);
    const copy = GatewayError.from(structuredClone(answer(429, 'true').toJSON()));
    expect(copy.upstream).toEqual({ status: 429, shouldRetry: 'true' });
    expect(copy.status).toBe(429);
  });

  it('counts any error with retryAfter as retryable', () => {
    expect(new GatewayError('model_unavailable', 'x', { retryAfter: 5 }).retryable).toBe(true);
  });

  it('round-trips through toJSON, structuredClone and from', () => {
    const original = new GatewayError('context_length_exceeded', 'too long', { param: 'messages', retryAfter: 3 });
    const copy = GatewayError.from(structuredClone(original.toJSON()));
    expect(copy).toBeInstanceOf(GatewayError);
    expect(copy).not.toBe(original);
    expect({ code: copy.code, message: copy.message, param: copy.param, retryAfter: copy.retryAfter, status: copy.status }).toEqual({
      code: 'context_length_exceeded',
      message: 'too long',
      param: 'messages',
      retryAfter: 3,
      status: 400,
    });
  });

  it('round-trips without param or retryAfter, also through JSON text', () => {
    const original = new GatewayError('queue_full', 'busy');
    const copy = GatewayError.from(JSON.parse(JSON.stringify(original)));
    expect(copy.code).toBe('queue_full');
    expect(copy.message).toBe('busy');
    expect(copy.param).toBeUndefined();
    expect(copy.retryAfter).toBeUndefined();
    expect(copy.retryable).toBe(true);
  });

  it('from() returns a GatewayError unchanged', () => {
    const error = new GatewayError('permission', 'no');
    expect(GatewayError.from(error)).toBe(error);
  });

  it('from() turns anything else into internal, keeping the message and cause', () => {
    const cause = new TypeError('boom');
    const fromError = GatewayError.from(cause);
    expect(fromError).toMatchObject({ code: 'internal', message: 'boom', status: 500 });
    expect(fromError.cause).toBe(cause);
    expect(GatewayError.from('plain text')).toMatchObject({ code: 'internal', message: 'plain text' });
    expect(GatewayError.from(new Error('')).message).toBe('The engine failed.');
  });

  it('from() does not trust data with an unknown code', () => {
    const copy = GatewayError.from({ name: 'GatewayError', code: 'teapot', message: 'short and stout' });
    expect(copy.code).toBe('internal');
  });

  it('from() does not trust an inherited code such as toString', () => {
    expect(GatewayError.from({ code: 'toString', message: 'x' }).code).toBe('internal');
  });
});

describe('isGatewayError', () => {
  it('recognises instances and their structured-clone data, by shape', () => {
    const error = new GatewayError('not_found', 'gone');
    expect(isGatewayError(error)).toBe(true);
    expect(isGatewayError(structuredClone(error.toJSON()))).toBe(true);
    expect(isGatewayError({ name: 'GatewayError', code: 'internal', message: 'other realm' })).toBe(true);
  });

  it.each([
    ['null', null],
    ['a string', 'GatewayError'],
    ['a plain Error', new Error('x')],
    ['data without a name', { code: 'internal', message: 'x' }],
    ['an unknown code', { name: 'GatewayError', code: 'nope', message: 'x' }],
    ['a non-string message', { name: 'GatewayError', code: 'internal', message: 5 }],
    ['a structured clone of the Error itself (code is lost)', structuredClone(new GatewayError('internal', 'x'))],
  ])('rejects %s', (_, value) => {
    expect(isGatewayError(value)).toBe(false);
  });
});

describe('GatewayError’s answer', () => {
  it('carries the retry advice in its headers', () => {
    expect(new GatewayError('invalid_request', 'x').answerHeaders).toEqual({ 'x-should-retry': 'false' });
    expect(new GatewayError('queue_full', 'x', { retryAfter: 2 }).answerHeaders).toEqual({ 'x-should-retry': 'true', 'retry-after': '2' });
  });

  it('passes an upstream’s answer on only for upstream_error, its advice as it came and its URL', () => {
    const upstream = { status: 429, retryAfter: '7', url: 'http://u.test/v1' };
    expect(new GatewayError('upstream_error', 'x', { upstream }).answerHeaders).toEqual({ 'retry-after': '7', 'x-inpage-llm-upstream': 'http://u.test/v1' });
    const other = new GatewayError('internal', 'x', { upstream });
    expect(other.upstream).toBeUndefined();
    expect([other.status, other.answerHeaders]).toEqual([500, { 'x-should-retry': 'true' }]);
  });
});
