/**
 * msw request handlers that answer the API with the gateway, for apps that already use msw: in the
 * browser (`setupWorker(...createHandlers(...))`) and in Node (`setupServer(...)`).
 * @module
 */
import { http } from 'msw';
import type { Engine } from '../core/engine.ts';
import type { ApiKey } from '../gateway/auth.ts';
import { createGateway, type ResponseStore } from '../gateway/index.ts';
import { DEFAULT_BASE_URL } from '../gateway/base-url.ts';

export interface HandlerOptions {
  readonly engine: Engine;
  /** Default `/v1` (msw resolves a path against the page's origin); in Node give an absolute URL. */
  readonly baseUrl?: string;
  readonly apiKeys?: readonly ApiKey[];
  readonly maxBodyBytes?: number;
  /** Where `POST /responses` keeps stored responses (default: memory, the newest 1,000). */
  readonly responseStore?: ResponseStore;
}

export function createHandlers(options: HandlerOptions) {
  const baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const gateway = createGateway({ ...options, baseUrl });
  return [http.all(`${baseUrl}/*`, ({ request }) => gateway.fetch(request))];
}
