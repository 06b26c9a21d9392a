/**
 * Points the real `openai` and `@anthropic-ai/sdk` clients at a gateway, through one of the two
 * ways apps wire it in Node: the SDK's own `fetch` option, or msw/node intercepting the base URL.
 * Every request the gateway sees is recorded, so tests can count retries and read wire bodies.
 */
import Anthropic from '@anthropic-ai/sdk';
import { setupServer } from 'msw/node';
import OpenAI from 'openai';
import { createGateway, type GatewayOptions } from '../../src/gateway/index.ts';
import { createHandlers } from '../../src/msw/handlers.ts';
import { createSSEParser } from '../../src/core/sse.ts';

export const ORIGIN = 'https://llm.test';
export const BASE = `${ORIGIN}/v1`;

export type TransportName = 'fetch option' | 'msw/node';
export const TRANSPORTS: readonly TransportName[] = ['fetch option', 'msw/node'];

export interface Harness {
  /** Requests as the gateway received them (clones, body readable). */
  readonly seen: Request[];
  openai(options?: Partial<ConstructorParameters<typeof OpenAI>[0]>): OpenAI;
  anthropic(options?: Partial<ConstructorParameters<typeof Anthropic>[0]>): Anthropic;
  /** A plain fetch that reaches the gateway by the same transport. */
  fetch(input: string, init?: RequestInit): Promise<Response>;
  close(): void;
}

export function createHarness(transport: TransportName, options: Omit<GatewayOptions, 'baseUrl'>): Harness {
  const seen: Request[] = [];
  let server: ReturnType<typeof setupServer> | undefined;
  let fetchImpl: typeof fetch;
  if (transport === 'msw/node') {
    // The product's own msw handlers; the recording happens in front of them.
    server = setupServer(...createHandlers({ ...options, baseUrl: BASE }));
    server.events.on('request:start', ({ request }) => void seen.push(request.clone()));
    server.listen({ onUnhandledFrame: 'error' });
    fetchImpl = (input, init) => globalThis.fetch(input, init);
  } else {
    const gateway = createGateway({ ...options, baseUrl: BASE });
    fetchImpl = (input, init) => {
      const request = new Request(input, init);
      seen.push(request.clone());
      return gateway.fetch(request);
    };
  }
  const sdkFetch = transport === 'msw/node' ? {} : { fetch: fetchImpl };
  return {
    seen,
    openai: (o) => new OpenAI({ apiKey: 'sk-local', baseURL: BASE, maxRetries: 0, ...sdkFetch, ...o }),
    // The Anthropic SDK appends /v1 itself, so its base URL is the origin.
    anthropic: (o) => new Anthropic({ apiKey: 'sk-ant-local', baseURL: ORIGIN, maxRetries: 0, ...sdkFetch, ...o }),
    fetch: (input, init) => fetchImpl(input, init),
    close: () => server?.close(),
  };
}

/** Reads an SSE body whole into `{event, data}` records (`event` null when the event has no `event:` line), with the product's decoder. */
export async function readSSE(response: Response): Promise<{ event: string | null; data: string }[]> {
  const decoder = createSSEParser();
  const events = decoder.feed(await response.text());
  if (decoder.rest().trim()) events.push(...decoder.feed('\n\n'));
  return events.map(({ event, data }) => ({ event: event ?? null, data }));
}
