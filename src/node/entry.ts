/**
 * The `inpage-llm/node` entry as the package builds it: `./index.ts`, loaded only once its imports
 * resolve, so that an app without transformers.js (an optional peer: browser apps do not need it)
 * gets a message naming what to install instead of a bare ERR_MODULE_NOT_FOUND.
 * @module
 */
import { explainMissingPeer } from './missing-peer.ts';

type NodeEntry = typeof import('./index.ts');

const entry: NodeEntry = await import('./index.ts').catch((error: unknown) => {
  throw explainMissingPeer(error);
});

export const { createGateway, createMemoryResponseStore, createNodeEngine, serveGateway, writeTinyModels } = entry;
export type * from './index.ts';
