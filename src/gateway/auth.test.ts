import { describe, expect, it } from 'vitest';
import { GatewayError } from '../core/errors.ts';
import { WIRES } from '../protocol/wires.ts';
import { authenticate, createKeyTable, redactKey } from './auth.ts';

describe('redactKey', () => {
  it('keeps the first 3 and last 4 characters of a long key, and nothing of a short one', () => {
    expect(redactKey('sk-local-abcdefgh1234')).toBe('sk-***1234');
    expect(redactKey('123456789')).toBe('123***6789');
    expect(redactKey('12345678')).toBe('***');
    expect(redactKey('')).toBe('***');
  });
});

describe('authenticate', () => {
  const table = createKeyTable(['sk-configured-key-0001', { key: 'sk-scoped-key-0002', models: ['tiny-embed'] }]);

  /** The error a request with these headers gets, or null when it is let in. */
  const failure = (headers: Record<string, string>, flavour: 'openai' | 'anthropic') => {
    try {
      authenticate(new Headers(headers), WIRES[flavour], table);
      return null;
    } catch (error) {
      return error as GatewayError;
    }
  };

  it('never puts a whole key in its error, whatever was sent', () => {
    // Near misses of a configured key, long and short, in both flavours and both headers.
    const sent = ['sk-configured-key-0001x', 'xsk-configured-key-0001', 'sk-configured-key-000', 'short', 'sk-other-but-long-key-9999'];
    for (const key of sent) {
      for (const [flavour, headers] of [
        ['openai', { authorization: `Bearer ${key}` }],
        ['anthropic', { 'x-api-key': key }],
        ['anthropic', { authorization: `Bearer ${key}` }],
      ] as const) {
        const error = failure(headers, flavour);
        expect(error).toBeInstanceOf(GatewayError);
        expect(error!.code).toBe('authentication');
        expect(error!.message).not.toContain(key);
        expect(error!.message).not.toContain('sk-configured-key-0001');
      }
    }
    expect(failure({ authorization: 'Bearer sk-other-but-long-key-9999' }, 'openai')!.message).toBe('Incorrect API key provided: sk-***9999.');
  });

  it('gives the key’s model scope, none for an unlimited key', () => {
    expect(authenticate(new Headers({ authorization: 'Bearer sk-configured-key-0001' }), WIRES.openai, table)).toBeUndefined();
    expect(authenticate(new Headers({ 'x-api-key': 'sk-scoped-key-0002' }), WIRES.anthropic, table)).toEqual(new Set(['tiny-embed']));
  });
});
