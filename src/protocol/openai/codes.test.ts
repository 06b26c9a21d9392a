/**
 * The OpenAI family's table, both ways: every failure, finish and usage this gateway writes reads
 * back (as a remote server's, through the client side and src/remote) to what it was, where the
 * API can say it.
 */
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, GatewayError, type GatewayErrorCode } from '../../core/errors.ts';
import type { FinishReason, Usage } from '../../core/generation.ts';
import { renderError } from '../../gateway/error-answer.ts';
import { readUpstreamFailure, toUpstreamError } from '../../remote/upstream-errors.ts';
import { readFinish, readOpenAIUsage, toFinishReason, toOpenAIUsage } from './codes.ts';
import { OPENAI } from './wire.ts';

/** Each code's `type` and `code`, as openai-node's callers have always been given them. */
const EXPECTED: Record<GatewayErrorCode, { type: string; code: string | null }> = {
  invalid_request: { type: 'invalid_request_error', code: null },
  context_length_exceeded: { type: 'invalid_request_error', code: 'context_length_exceeded' },
  authentication: { type: 'invalid_request_error', code: 'invalid_api_key' },
  permission: { type: 'invalid_request_error', code: 'permission_denied' },
  not_found: { type: 'invalid_request_error', code: 'unknown_url' },
  resource_not_found: { type: 'invalid_request_error', code: null },
  model_not_found: { type: 'invalid_request_error', code: 'model_not_found' },
  method_not_allowed: { type: 'invalid_request_error', code: 'method_not_allowed' },
  request_too_large: { type: 'invalid_request_error', code: 'request_too_large' },
  queue_full: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
  internal: { type: 'server_error', code: null },
  model_unavailable: { type: 'service_unavailable_error', code: 'model_unavailable' },
  engine_unavailable: { type: 'service_unavailable_error', code: 'engine_unavailable' },
  device_lost: { type: 'service_unavailable_error', code: 'device_lost' },
  insufficient_storage: { type: 'server_error', code: 'insufficient_storage' },
  upstream_unreachable: { type: 'server_error', code: 'upstream_unreachable' },
  upstream_timeout: { type: 'server_error', code: 'upstream_timeout' },
  upstream_error: { type: 'server_error', code: null },
  aborted: { type: 'invalid_request_error', code: 'request_aborted' },
};

const CODES = Object.keys(ERROR_CODES) as GatewayErrorCode[];
const URL_ = 'http://upstream.test/v1';

describe('the OpenAI error table', () => {
  it('names every code', () => {
    expect([...CODES].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(CODES)('renders %s with its type and code', async (code) => {
    const response = renderError(new GatewayError(code, 'x'), OPENAI, 'req_1');
    expect(response.status).toBe(ERROR_CODES[code].status);
    expect(await response.json()).toEqual({ error: { message: 'x', param: null, ...EXPECTED[code] } });
  });

  it.each(CODES)('reads %s back from a server that answered it: the same status, type, code and advice', async (code) => {
    const first = renderError(new GatewayError(code, 'x'), OPENAI, 'req_1');
    const firstBody = (await first.clone().json()) as { error: Record<string, unknown> };
    const passed = renderError(toUpstreamError(await readUpstreamFailure(first, URL_), URL_), OPENAI, 'req_2');
    expect(passed.status).toBe(first.status);
    const { message, ...said } = ((await passed.json()) as { error: Record<string, unknown> }).error;
    const { message: _, ...original } = firstBody.error;
    expect(said).toEqual(original);
    expect(message).toBe(`The upstream ${URL_} answered ${first.status}: x`);
    expect(passed.headers.get('x-should-retry')).toBe(first.headers.get('x-should-retry'));
  });
});

describe('the OpenAI finish table', () => {
  const reasons: FinishReason[] = ['stop', 'length', 'stop_sequence', 'tool_calls', 'refusal'];

  it('names every finish, and reads each back as itself where the API can say it', () => {
    expect(reasons.map(toFinishReason)).toEqual(['stop', 'length', 'stop', 'tool_calls', 'content_filter']);
    for (const reason of reasons.filter((r) => r !== 'stop_sequence')) expect(readFinish({ finish_reason: toFinishReason(reason) })).toEqual({ reason, stopSequence: null });
  });

  it('reads a stop sequence back where the server names it (vLLM, SGLang), else as a plain stop', () => {
    const wire = toFinishReason('stop_sequence');
    expect(readFinish({ finish_reason: wire, stop_reason: '###' })).toEqual({ reason: 'stop_sequence', stopSequence: '###' });
    expect(readFinish({ finish_reason: wire, matched_stop: '###' })).toEqual({ reason: 'stop_sequence', stopSequence: '###' });
    expect(readFinish({ finish_reason: wire })).toEqual({ reason: 'stop', stopSequence: null });
  });

  it('reads the older function_call as calls, and anything else as a stop', () => {
    expect(readFinish({ finish_reason: 'function_call' }).reason).toBe('tool_calls');
    for (const odd of ['constructor', 'eos', null, 3]) expect(readFinish({ finish_reason: odd }).reason).toBe('stop');
  });
});

describe('the OpenAI usage table', () => {
  it.each([
    { promptTokens: 3, completionTokens: 4, cachedTokens: 0 },
    { promptTokens: 30, completionTokens: 4, cachedTokens: 26 },
    { promptTokens: 12, completionTokens: 40, cachedTokens: 2, reasoningTokens: 31 },
  ] satisfies Usage[])('reads %o back as itself', (usage) => {
    expect(readOpenAIUsage(JSON.parse(JSON.stringify(toOpenAIUsage(usage))))).toEqual(usage);
  });

  it('reads missing or malformed counts as 0', () => {
    expect(readOpenAIUsage(undefined)).toEqual({ promptTokens: 0, completionTokens: 0, cachedTokens: 0 });
    expect(readOpenAIUsage({ prompt_tokens: '5', completion_tokens: 2, prompt_tokens_details: null })).toEqual({ promptTokens: 0, completionTokens: 2, cachedTokens: 0 });
  });
});
