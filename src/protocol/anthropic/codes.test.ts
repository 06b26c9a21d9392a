/**
 * The Anthropic family's table, both ways: every failure, finish and usage this gateway writes
 * reads back (as a remote server's, through the client side and src/remote) to what it was, where
 * the API can say it.
 */
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, GatewayError, type GatewayErrorCode } from '../../core/errors.ts';
import type { FinishReason, Usage } from '../../core/generation.ts';
import { renderError } from '../../gateway/error-answer.ts';
import { readUpstreamFailure, toUpstreamError } from '../../remote/upstream-errors.ts';
import { fromMessageEvents } from './client.ts';
import { errorTypeOfStatus, readAnthropicUsage, readErrorType, readStopReason, toAnthropicUsage, toStopReason, usageOfCounts, type AnthropicCounts } from './codes.ts';
import { ANTHROPIC, anthropicErrorEvent } from './wire.ts';

/** Each code's `type`, as the SDK's callers have always been given it. */
const EXPECTED: Record<GatewayErrorCode, string> = {
  invalid_request: 'invalid_request_error',
  context_length_exceeded: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  resource_not_found: 'not_found_error',
  model_not_found: 'not_found_error',
  method_not_allowed: 'invalid_request_error',
  request_too_large: 'request_too_large',
  queue_full: 'rate_limit_error',
  internal: 'api_error',
  model_unavailable: 'api_error',
  engine_unavailable: 'overloaded_error',
  device_lost: 'overloaded_error',
  insufficient_storage: 'api_error',
  upstream_unreachable: 'api_error',
  upstream_timeout: 'timeout_error',
  upstream_error: 'api_error',
  aborted: 'invalid_request_error',
};

/** A busy engine's 503 is an overloaded_error: a status alone says api_error. */
const BUSY: readonly GatewayErrorCode[] = ['engine_unavailable', 'device_lost'];

const CODES = Object.keys(ERROR_CODES) as GatewayErrorCode[];
const URL_ = 'https://api.anthropic.test/v1';

/** The GatewayError the client side makes of a stream's `error` event. */
async function readEvent(data: string): Promise<GatewayError> {
  const events = fromMessageEvents((async function* () {
    yield { event: 'error', data };
  })());
  return events.next().then(
    () => expect.unreachable('the event was not read as an error'),
    (error: unknown) => error as GatewayError,
  );
}

describe('the Anthropic error table', () => {
  it('names every code', () => {
    expect([...CODES].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(CODES)('renders %s with its type', async (code) => {
    const response = renderError(new GatewayError(code, 'x'), ANTHROPIC, 'req_1');
    expect(response.status).toBe(ERROR_CODES[code].status);
    expect(await response.json()).toEqual({ type: 'error', error: { type: EXPECTED[code], message: 'x' }, request_id: 'req_1' });
  });

  it.each(CODES.filter((code) => !BUSY.includes(code)))('reads %s back from a server that answered it: the same status, type and advice', async (code) => {
    const first = renderError(new GatewayError(code, 'x'), ANTHROPIC, 'req_1');
    const passed = renderError(toUpstreamError(await readUpstreamFailure(first.clone(), URL_), URL_), ANTHROPIC, 'req_2');
    expect(passed.status).toBe(first.status);
    expect(((await passed.json()) as { error: { type: string } }).error.type).toBe(((await first.json()) as { error: { type: string } }).error.type);
    expect(passed.headers.get('x-should-retry')).toBe(first.headers.get('x-should-retry'));
  });

  it.each(BUSY)('reads %s back from a stream’s error event with its status', async (code) => {
    const error = await readEvent(anthropicErrorEvent(new GatewayError(code, 'x'), 'req_1').data);
    expect(error).toMatchObject({ code: 'upstream_error', message: 'x', status: ERROR_CODES[code].status });
  });

  it.each(['invalid_request_error', 'authentication_error', 'permission_error', 'not_found_error', 'request_too_large', 'rate_limit_error', 'api_error'])(
    'reads an error event of type %s back with a status of that type',
    async (type) => {
      const error = await readEvent(JSON.stringify({ type: 'error', error: { type, message: 'x' } }));
      expect(errorTypeOfStatus(error.status)).toBe(type);
    },
  );

  it('reads the types the stream cannot tell apart by status, or does not know, as 500', () => {
    expect(['billing_error', 'timeout_error', 'conflict_error', 'teapot_error', 'constructor', undefined].map(readErrorType)).toEqual([500, 500, 500, 500, 500, 500]);
    expect(readErrorType('overloaded_error')).toBe(503);
  });
});

describe('the Anthropic finish table', () => {
  const reasons: FinishReason[] = ['stop', 'length', 'stop_sequence', 'tool_calls', 'refusal'];

  it('names every finish, and reads each back as itself', () => {
    expect(reasons.map(toStopReason)).toEqual(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'refusal']);
    for (const reason of reasons) {
      const stopSequence = reason === 'stop_sequence' ? '\n\nHuman:' : null;
      expect(readStopReason(toStopReason(reason), stopSequence)).toEqual({ reason, stopSequence });
    }
  });

  it('reads a paused turn as a stop, a full context window as the cap, and anything else as a stop', () => {
    expect(readStopReason('pause_turn', null).reason).toBe('stop');
    expect(readStopReason('model_context_window_exceeded', null).reason).toBe('length');
    expect(readStopReason('stop_sequence', null)).toEqual({ reason: 'stop', stopSequence: null });
    for (const odd of ['constructor', 'eos', null]) expect(readStopReason(odd, null).reason).toBe('stop');
  });
});

describe('the Anthropic usage table', () => {
  it.each([
    { promptTokens: 11, completionTokens: 2, cachedTokens: 0 },
    { promptTokens: 30, completionTokens: 4, cachedTokens: 26 },
  ] satisfies Usage[])('reads %o back as itself', (usage) => {
    const counts: AnthropicCounts = {};
    readAnthropicUsage(JSON.parse(JSON.stringify(toAnthropicUsage(usage))), counts);
    expect(usageOfCounts(counts)).toEqual(usage);
  });

  it('reads a thinking model’s counts back without its thinking tokens, which the client side does not read', () => {
    const counts: AnthropicCounts = {};
    readAnthropicUsage(toAnthropicUsage({ promptTokens: 12, completionTokens: 40, cachedTokens: 2, reasoningTokens: 31 }), counts);
    expect(usageOfCounts(counts)).toEqual({ promptTokens: 12, completionTokens: 40, cachedTokens: 2 });
  });

  it('keeps a count a later report leaves out, as the stream reports them cumulatively', () => {
    const counts: AnthropicCounts = {};
    readAnthropicUsage({ input_tokens: 5, cache_read_input_tokens: 3, output_tokens: 0 }, counts);
    readAnthropicUsage({ output_tokens: 7, input_tokens: null }, counts);
    expect(usageOfCounts(counts)).toEqual({ promptTokens: 8, completionTokens: 7, cachedTokens: 3 });
  });
});
