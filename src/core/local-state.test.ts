import { describe, expect, it } from 'vitest';
import type { Engine, ModelLocalState } from './engine.ts';
import { readLocalStates, toWireLocalState } from './local-state.ts';

const LOADED: ModelLocalState = { id: 'm', state: 'loaded', downloaded: true, bytesOnDisk: 2048, runnable: true, backend: 'wasm', requires: [] };
const engineWith = (modelStates?: Engine['modelStates']): Engine => ({
  listModels: async () => [],
  chat: () => {
    throw new Error('not used');
  },
  embed: async () => {
    throw new Error('not used');
  },
  ...(modelStates ? { modelStates } : {}),
});

describe('readLocalStates', () => {
  it('maps the engine states by model id', async () => {
    expect(await readLocalStates(engineWith(async () => [LOADED]))).toEqual(new Map([['m', LOADED]]));
  });

  it('is empty for an engine that reports none, one that fails, and one slower than the timeout', async () => {
    expect((await readLocalStates(engineWith())).size).toBe(0);
    expect((await readLocalStates(engineWith(async () => Promise.reject(new Error('worker gone'))))).size).toBe(0);
    const started = Date.now();
    expect((await readLocalStates(engineWith(() => new Promise(() => {})), 30)).size).toBe(0);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('toWireLocalState', () => {
  it('writes snake_case keys, leaving out backend, reason and error when absent', () => {
    expect(toWireLocalState(LOADED)).toEqual({ state: 'loaded', downloaded: true, size_bytes: 2048, runnable: true, requires: [], backend: 'wasm' });
    const failed: ModelLocalState = { id: 'w', state: 'failed', downloaded: false, bytesOnDisk: 0, runnable: false, reason: 'No WebGPU.', requires: ['webgpu'], error: 'boom' };
    expect(toWireLocalState(failed)).toEqual({ state: 'failed', downloaded: false, size_bytes: 0, runnable: false, requires: ['webgpu'], reason: 'No WebGPU.', error: 'boom' });
  });

  it('says which CPU engine runs a WASM model, on how many threads, and why', () => {
    const cpu = { runtime: 'onnxruntime-web (WebAssembly SIMD, threaded build)', threads: 1, reason: 'one thread: the page is not cross-origin isolated' };
    expect(toWireLocalState({ ...LOADED, cpu })).toMatchObject({ backend: 'wasm', cpu });
  });

  it('says requires [] when the engine gave none', () => {
    const { requires: _, ...bare } = LOADED;
    expect(toWireLocalState(bare).requires).toEqual([]);
  });
});
