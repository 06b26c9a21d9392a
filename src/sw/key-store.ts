/**
 * What a restarted service worker must know before it answers: the API keys the host page
 * configured, which client the host is (whom to believe, see host-channel.ts), and the remote
 * models it answers for with no host. Kept in Cache Storage, as the worker's own memory does not
 * survive a restart.
 * @module
 */
import type { ModelInfo } from '../core/engine.ts';
import type { ApiKey } from '../gateway/auth.ts';

const CACHE = 'inpage-llm-config';
const KEY = '/__inpage-llm/api-keys';
const HOST = '/__inpage-llm/host';
const REMOTE = '/__inpage-llm/remote-models';

export async function saveApiKeys(keys: readonly ApiKey[] | undefined): Promise<void> {
  await put(KEY, keys ?? null);
}

export async function loadApiKeys(): Promise<ApiKey[] | undefined> {
  return ((await get(KEY)) as ApiKey[] | null) ?? undefined;
}

/** The host tab's remote models, as it last told them: served with no tab hosting the engine. */
export async function saveRemoteModels(models: readonly ModelInfo[]): Promise<void> {
  await put(REMOTE, models);
}

export async function loadRemoteModels(): Promise<ModelInfo[]> {
  const models = await get(REMOTE);
  return Array.isArray(models) ? (models as ModelInfo[]) : [];
}

/** The host's service worker Client id (none: no host, or it left). */
export async function saveHostId(id: string | undefined): Promise<void> {
  await put(HOST, id ?? null);
}

export async function loadHostId(): Promise<string | undefined> {
  const id = await get(HOST);
  return typeof id === 'string' ? id : undefined;
}

async function put(path: string, value: unknown): Promise<void> {
  const cache = await caches.open(CACHE);
  await cache.put(path, new Response(JSON.stringify(value), { headers: { 'content-type': 'application/json' } }));
}

async function get(path: string): Promise<unknown> {
  try {
    const response = await (await caches.open(CACHE)).match(path);
    return (await response?.json()) ?? null;
  } catch {
    return null;
  }
}
