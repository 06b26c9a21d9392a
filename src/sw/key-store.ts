/** The API keys the host page configured, persisted for service worker restarts. @module */
import type { ApiKey } from '../gateway/auth.ts';

const CACHE = 'inpage-llm-config';
const KEY = '/__inpage-llm/api-keys';

export async function saveApiKeys(keys: readonly ApiKey[] | undefined): Promise<void> {
  const cache = await caches.open(CACHE);
  await cache.put(KEY, new Response(JSON.stringify(keys ?? null), { headers: { 'content-type': 'application/json' } }));
}

export async function loadApiKeys(): Promise<ApiKey[] | undefined> {
  try {
    const response = await (await caches.open(CACHE)).match(KEY);
    return ((await response?.json()) as ApiKey[] | null) ?? undefined;
  } catch {
    return undefined;
  }
}
