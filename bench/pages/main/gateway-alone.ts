/**
 * The product's own code alone, in the page: its gateway over an engine that answers at once (one
 * token; vectors computed beforehand), called as the fetch shim calls it. What it takes is the
 * product's HTTP shaping per request (parsing, encoding, JSON, the client's parse and decode), with
 * no transport, RPC or model.
 * @module
 */
import type { Engine } from '../../../src/core/engine.ts';
import { createGateway } from '../../../src/gateway/index.ts';
import { gatewayFetch } from './client.ts';
import { SHIM_BASE } from './workload.ts';

export function gatewayAlone(answers: Pick<Engine, 'listModels' | 'embed'>, options: { readBodyWhole?: true } = {}): typeof fetch {
  const instant: Engine = {
    listModels: answers.listModels,
    async *chat() {
      yield { type: 'start', promptTokens: 9 };
      yield { type: 'token', text: 'x' };
      yield { type: 'end', reason: 'length' };
    },
    embed: answers.embed,
  };
  return gatewayFetch(createGateway({ engine: instant, baseUrl: SHIM_BASE, ...options }));
}
