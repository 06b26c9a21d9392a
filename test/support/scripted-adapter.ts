/**
 * TEST DOUBLE. Gives the scripted engine the adapter surface (load/unload), counting loads, so the
 * model host and the worker RPC can be tested without an inference library.
 */
import type { EngineAdapter } from '../../src/engines/hosting/adapter.ts';
import { GatewayError } from '../../src/core/errors.ts';
import { ScriptedEngine, SCRIPTED_MODELS, type ScriptedEngineOptions } from './scripted-engine.ts';

export class ScriptedAdapter extends ScriptedEngine implements EngineAdapter {
  readonly models = SCRIPTED_MODELS;
  readonly exactEmbeddingBatches = true;
  readonly loaded = new Set<string>();
  readonly loadLog: string[] = [];
  /** Models whose load fails, as if their files could not be fetched. */
  readonly broken = new Set<string>();
  loadDelayMs = 0;

  constructor(options: ScriptedEngineOptions = {}) {
    super(options);
  }

  async load(model: string): Promise<void> {
    if (this.loaded.has(model)) return;
    if (this.loadDelayMs) await new Promise((r) => setTimeout(r, this.loadDelayMs));
    if (this.broken.has(model)) throw new GatewayError('model_unavailable', `Could not fetch the files of '${model}'.`);
    this.loadLog.push(model);
    this.loaded.add(model);
  }

  async unload(model: string): Promise<void> {
    this.loaded.delete(model);
  }
}
