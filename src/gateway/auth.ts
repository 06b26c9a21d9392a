/**
 * API keys. With none configured (the local default) every caller is let in. With keys, each
 * request must carry one, read as its family's SDKs send it (the request's WireDescriptor), and a
 * key may be limited to some models. The table is the gateway's own and can be replaced while it
 * runs (a host page's keys change), so nothing else the gateway holds starts again.
 * @module
 */
import { GatewayError } from '../core/errors.ts';
import type { ApiKey, ModelScope } from '../core/models.ts';
import type { WireDescriptor } from '../core/wire.ts';

export type { ApiKey };

export type KeyTable = ReadonlyMap<string, ModelScope>;

export function createKeyTable(keys: readonly ApiKey[] | undefined): KeyTable | undefined {
  if (!keys || keys.length === 0) return undefined;
  return new Map(keys.map((k) => (typeof k === 'string' ? [k, undefined] : [k.key, k.models ? new Set(k.models) : undefined])));
}

/** The caller's model scope, or a 401 in its family's words. */
export function authenticate(headers: Headers, wire: WireDescriptor, table: KeyTable | undefined): ModelScope {
  if (!table) return undefined;
  const key = wire.credentials(headers);
  if (!key) throw new GatewayError('authentication', wire.missingKey);
  if (!table.has(key)) throw new GatewayError('authentication', wire.wrongKey(redactKey(key)));
  return table.get(key);
}

/**
 * A key as it may be shown (in an error, a log, the playground's inspector): its first 3 and last
 * 4 characters, as OpenAI does; a short key not at all.
 */
export function redactKey(key: string): string {
  return key.length <= 8 ? '***' : `${key.slice(0, 3)}***${key.slice(-4)}`;
}
