/**
 * The engines the SDK conformance suites run against. The scripted test double covers the
 * protocol; the real engines join this list and must pass the same suites.
 */
import type { Engine } from '../../src/core/engine.ts';
import { withFaults, type ChatCallRecord } from './fault-engine.ts';
import { ScriptedEngine } from './scripted-engine.ts';

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

export const ENGINE_FIXTURES: readonly EngineFixture[] = [scriptedFixture];
