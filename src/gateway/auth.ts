/**
 * API keys. With none configured (the local default) every caller is let in. With keys, each
 * request must carry one, and a key may be limited to some models.
 * OpenAI clients send `Authorization: Bearer`; Anthropic clients send `x-api-key` (SDK 0.x, the
 * spec) or `Authorization: Bearer` (SDK 1.x).
 * @module
 */
import { GatewayError } from '../core/errors.ts';
import type { ApiKey, ModelScope } from '../core/models.ts';
import type { Flavour } from './flavour.ts';

export type { ApiKey };

export type KeyTable = ReadonlyMap<string, ModelScope>;

export function createKeyTable(keys: readonly ApiKey[] | undefined): KeyTable | undefined {
  if (!keys || keys.length === 0) return undefined;
  return new Map(keys.map((k) => (typeof k === 'string' ? [k, undefined] : [k.key, k.models ? new Set(k.models) : undefined])));
}

/** The caller's model scope, or a 401 in the flavour's words. */
export function authenticate(headers: Headers, flavour: Flavour, table: KeyTable | undefined): ModelScope {
  if (!table) return undefined;
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.get('authorization') ?? '')?.[1]?.trim();
  // An empty x-api-key does not hide a Bearer key sent alongside it.
  const key = flavour === 'anthropic' ? headers.get('x-api-key')?.trim() || bearer : bearer;
  if (!key) {
    throw new GatewayError(
      'authentication',
      flavour === 'anthropic'
        ? 'x-api-key header is required (or send the key as Authorization: Bearer <key>).'
        : "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
    );
  }
  if (!table.has(key)) {
    throw new GatewayError('authentication', flavour === 'anthropic' ? 'invalid x-api-key' : `Incorrect API key provided: ${redactKey(key)}.`);
  }
  return table.get(key);
}

/**
 * A key as it may be shown (in an error, a log, the playground's inspector): its first 3 and last
 * 4 characters, as OpenAI does; a short key not at all.
 */
export function redactKey(key: string): string {
  return key.length <= 8 ? '***' : `${key.slice(0, 3)}***${key.slice(-4)}`;
}
