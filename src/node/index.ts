/**
 * The gateway in Node: the same endpoints over transformers.js on onnxruntime-node (CPU), for
 * servers, tests and scripts. `serveGateway` runs it as an HTTP server (what `npx inpage-llm serve`
 * does); or pair `createNodeEngine` with `createGateway` and any server that speaks `Request`/`Response`:
 *
 *   const engine = createNodeEngine({ localModelPath: './models' });
 *   const server = await serveGateway({ engine, port: 8080 });   // server.url: http://127.0.0.1:8080/v1
 *   const gateway = createGateway({ engine, baseUrl: 'http://localhost:8080/v1' });   // or the gateway alone
 *
 * @module
 */
import { readdirSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ModelEntry } from '../contracts/worker-config.ts';
import { withAppModels } from '../engines/catalog/app-models.ts';
import { transformersModels } from '../engines/catalog/catalog.ts';
import { createModelHost, type ModelHost } from '../engines/hosting/model-host.ts';
import { loadXGrammar } from '../engines/grammar/load-xgrammar.node.ts';
import { createTransformersAdapter } from '../engines/transformers/index.ts';
import { generateTinyModels } from '../tiny-models/generate.ts';

export { createGateway } from '../gateway/create-gateway.ts';
export { serveGateway, type GatewayServer, type ServeOptions } from './serve.ts';
export type { ApiKey } from '../gateway/auth.ts';
export type { Gateway, GatewayOptions } from '../gateway/create-gateway.ts';
export { createMemoryResponseStore } from '../protocol/openai/responses/store.ts';
export type { ResponseStore } from '../protocol/openai/responses/store.ts';
export type { ModelHost } from '../engines/hosting/model-host.ts';
export type { ModelEntry, RemoteModelEntry, TransformersModelEntry } from '../contracts/worker-config.ts';
export type { UpstreamSpec, UpstreamFlavour } from '../core/upstream-spec.ts';

export interface NodeEngineOptions {
  /**
   * The folder holding local models, one sub-folder per model (`writeTinyModels` fills one). Each
   * model's `downloaded` says whether its weights are there; the tiny generated models are listed
   * only when they are.
   */
  readonly localModelPath?: string;
  /** Fetch catalog models that are not local from the Hugging Face hub (default false: offline). */
  readonly allowRemoteModels?: boolean;
  /** A mirror with the hub's layout to fetch remote models from. */
  readonly remoteHost?: string;
  /** Models of your own: transformers.js entries, and remote ones (web-llm needs a browser's WebGPU). */
  readonly models?: readonly ModelEntry[];
  /** Each model's fallback by id (catalog models included), see `ModelEntry.fallback`. */
  readonly fallbacks?: Readonly<Record<string, string>>;
  /** Models kept in memory at once (default 2). */
  readonly maxLoaded?: number;
  /**
   * Bytes of key/value cache kept from finished chat requests, so a conversation's next turn reads
   * only its new tokens; 0 keeps none. Default 256 MiB.
   */
  readonly prefixCacheBytes?: number;
  /** Draft chat answers from their prompts (prompt lookup), checked several tokens a pass (default true). */
  readonly promptLookup?: boolean;
}

/** The catalog's transformers.js models (and yours) on onnxruntime-node. */
export function createNodeEngine(options: NodeEngineOptions = {}): ModelHost {
  const webllm = options.models?.find((entry) => entry.engine === 'webllm');
  if (webllm) throw new Error(`Model "${webllm.id}" runs on web-llm, which needs a browser's WebGPU; in Node, use transformers.js models.`);
  // The tiny generated models are in the catalog as the offline default, not on any hub: given a
  // models folder, they are listed only where it holds them (`writeTinyModels`, `serve --tiny`).
  const dir = options.localModelPath;
  const shipped = dir === undefined ? transformersModels : transformersModels.filter((spec) => !spec.bundled || onDiskNow(dir, spec.source));
  const catalog = withAppModels({ transformers: shipped, webllm: [] }, options.models, undefined, options.fallbacks);
  const adapter = createTransformersAdapter({
    models: catalog.transformers,
    ...(options.localModelPath !== undefined ? { localModelPath: options.localModelPath } : {}),
    allowRemoteModels: options.allowRemoteModels ?? false,
    ...(options.remoteHost !== undefined ? { remoteHost: options.remoteHost } : {}),
    device: 'cpu',
    grammar: loadXGrammar,
    ...(options.prefixCacheBytes !== undefined ? { prefixCacheBytes: options.prefixCacheBytes } : {}),
    ...(options.promptLookup !== undefined ? { promptLookup: options.promptLookup } : {}),
    ...(options.localModelPath !== undefined ? { onDisk: onDiskUnder(options.localModelPath) } : {}),
  });
  return createModelHost({ adapters: [adapter], remoteModels: catalog.remote, ...(options.maxLoaded !== undefined ? { maxLoaded: options.maxLoaded } : {}) });
}

/** Writes the tiny generated models (`tiny-embed`, `tiny-chat`: random weights, seeded) into a folder. */
export async function writeTinyModels(dir: string): Promise<void> {
  await generateTinyModels(dir);
}

/**
 * Whether a model's files are in the models folder, as transformers.js reads them there: its
 * folder (`source`) with its weights, an `.onnx` file under `onnx/`.
 */
function onDiskUnder(dir: string): (source: string) => Promise<boolean> {
  return async (source) => {
    const folder = weightsFolder(dir, source);
    return folder !== undefined && (await readdir(folder).catch(() => [] as string[])).some(isWeights);
  };
}

/** The same, read at once: which of the catalog's tiny models to list. */
function onDiskNow(dir: string, source: string): boolean {
  const folder = weightsFolder(dir, source);
  if (folder === undefined) return false;
  try {
    return readdirSync(folder).some(isWeights);
  } catch {
    return false;
  }
}

/** Where a source's weights are under the models folder; none for a URL or a path that leaves it. */
function weightsFolder(dir: string, source: string): string | undefined {
  return /^[a-z][a-z0-9+.-]*:/i.test(source) || source.split('/').includes('..') ? undefined : join(dir, source, 'onnx');
}

const isWeights = (name: string) => name.endsWith('.onnx');
