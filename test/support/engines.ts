/**
 * The engines the SDK conformance suites run against. The scripted test double covers the
 * protocol; the real engines join this list and must pass the same suites.
 */
import type { Engine } from '../../src/core/engine.ts';
import { withFaults, type ChatCallRecord } from './fault-engine.ts';
import { ScriptedEngine } from './scripted-engine.ts';
import { ScriptedAdapter } from './scripted-adapter.ts';
import { wrap } from 'comlink';
import { createModelHost, type ModelHost } from '../../src/engines/hosting/model-host.ts';
import { tinyModelSpecs } from '../../src/engines/catalog/tiny-model-specs.ts';
import { createTransformersAdapter } from '../../src/engines/transformers/index.ts';
import { generateTinyModels } from '../../src/tiny-models/generate.ts';
import { loadXGrammar } from '../../src/engines/grammar/load-xgrammar.node.ts';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineHostApi } from '../../src/contracts/engine-host.ts';
import { createHostService } from '../../src/rpc/expose-host.ts';
import { linkEngine } from '../../src/rpc/engine-link.ts';

export interface EngineFixture {
  readonly name: string;
  /** A fresh engine wrapped with fault injection; `calls` records each chat call as it runs. */
  create(): Promise<{ engine: Engine; calls: ChatCallRecord[] }>;
  readonly chatModel: string;
  /** An embedding model that supports `dimensions`. */
  readonly embedModel: string;
  /** An embedding model that does not, if the fixture has one. */
  readonly fixedEmbedModel?: string;
}

export const scriptedFixture: EngineFixture = {
  name: 'scripted engine (test double)',
  async create() {
    const calls: ChatCallRecord[] = [];
    return { engine: withFaults(new ScriptedEngine({ answerTokens: 64, tokenDelayMs: 1 }), calls), calls };
  },
  chatModel: 'scripted-chat',
  embedModel: 'scripted-embed',
  fixedEmbedModel: 'scripted-embed-fixed',
};

/**
 * The same test double behind the real runtime plumbing: model host → comlink over a
 * MessageChannel → engine link, with faults injected on the worker side so errors cross as data.
 */
export const scriptedOverRpcFixture: EngineFixture = {
  ...scriptedFixture,
  name: 'scripted engine (test double) through the worker RPC',
  async create() {
    const calls: ChatCallRecord[] = [];
    const host = createModelHost({ adapters: [new ScriptedAdapter({ answerTokens: 64, tokenDelayMs: 1 })] });
    const faulty = withFaults(host, calls);
    const service = createHostService({ ...host, chat: faulty.chat, embed: faulty.embed });
    const { port1, port2 } = new MessageChannel();
    service.serve(port1);
    return { engine: linkEngine(wrap<EngineHostApi>(port2)), calls };
  },
};

let tinyModels: Promise<string> | undefined;
/** The generated tiny models, written once per test process to a temporary folder. */
export function tinyModelDir(): Promise<string> {
  return (tinyModels ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inpage-tiny-'));
    await generateTinyModels(dir);
    return dir;
  })());
}

let tinyHost: Promise<ModelHost> | undefined;
/** Real transformers.js inference (onnxruntime-node) on the generated tiny models: no test double. */
export const transformersFixture: EngineFixture = {
  name: 'transformers.js on the tiny models',
  async create() {
    const host = await (tinyHost ??= (async () =>
      createModelHost({ adapters: [createTransformersAdapter({ models: tinyModelSpecs, localModelPath: await tinyModelDir(), device: 'cpu', grammar: loadXGrammar })] }))());
    const calls: ChatCallRecord[] = [];
    return { engine: withFaults(host, calls), calls };
  },
  chatModel: 'tiny-chat',
  embedModel: 'tiny-embed',
};

export const ENGINE_FIXTURES: readonly EngineFixture[] = [scriptedFixture, scriptedOverRpcFixture, transformersFixture];
