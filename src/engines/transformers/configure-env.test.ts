import { describe, expect, it } from 'vitest';
import { versioned } from './configure-env.ts';

describe('the onnxruntime wasm URL', () => {
  it('names the onnxruntime version, so a copy kept under it never meets another version', () => {
    expect(versioned({ wasm: '/inpage-llm/ort-wasm-simd-threaded.asyncify.wasm' }, '1.31.0-dev.20260914-8d85527a0')).toEqual({
      wasm: '/inpage-llm/ort-wasm-simd-threaded.asyncify.wasm?v=1.31.0-dev.20260914-8d85527a0',
    });
    // The glue beside it too: a kept copy of either must match the other.
    expect(versioned({ wasm: '/a.wasm', mjs: '/a.mjs' }, '1.31.0')).toEqual({ wasm: '/a.wasm?v=1.31.0', mjs: '/a.mjs?v=1.31.0' });
  });

  it("leaves an app's own query, a path prefix and an unknown version alone", () => {
    expect(versioned({ wasm: '/ort.wasm?build=7' }, '1.31.0')).toEqual({ wasm: '/ort.wasm?build=7' });
    expect(versioned('/ort/', '1.31.0')).toBe('/ort/');
    expect(versioned({ wasm: '/ort.wasm' }, undefined)).toEqual({ wasm: '/ort.wasm' });
  });
});
