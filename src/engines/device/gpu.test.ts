// The WebGPU probe on DOUBLES of `navigator.gpu` (Node has none; the browser suite probes SwiftShader).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { probeGpu } from './gpu.ts';

/** Like the browser's: the limits are getters on the prototype, which a spread would not copy. */
class SupportedLimits {
  get maxBufferSize() {
    return 268_435_456;
  }
  get maxStorageBufferBindingSize() {
    return 134_217_728;
  }
  get maxComputeWorkgroupStorageSize() {
    return 16_384;
  }
  get maxStorageBuffersPerShaderStage() {
    return 8;
  }
}

afterEach(() => vi.unstubAllGlobals());

describe('probeGpu', () => {
  it("reads the adapter's features and limits, and the memory the device reports", async () => {
    const adapter = { features: new Set(['subgroups', 'shader-f16']), limits: new SupportedLimits(), info: { vendor: 'acme', architecture: 'x', description: '' } };
    vi.stubGlobal('navigator', { deviceMemory: 4, gpu: { requestAdapter: async () => adapter } });
    expect(await probeGpu()).toEqual({
      webgpu: 'ok',
      vendor: 'acme',
      architecture: 'x',
      shaderF16: true,
      software: false,
      features: ['shader-f16', 'subgroups'],
      limits: { maxBufferSize: 268_435_456, maxStorageBufferBindingSize: 134_217_728, maxComputeWorkgroupStorageSize: 16_384, maxStorageBuffersPerShaderStage: 8 },
      deviceMemoryGB: 4,
    });
  });

  it('says which of WebGPU or its adapter is missing, with the memory still', async () => {
    vi.stubGlobal('navigator', { deviceMemory: 2, gpu: { requestAdapter: async () => null } });
    expect(await probeGpu()).toEqual({ webgpu: 'no-adapter', shaderF16: false, software: false, deviceMemoryGB: 2 });
    vi.stubGlobal('navigator', {});
    expect(await probeGpu()).toEqual({ webgpu: 'absent', shaderF16: false, software: false });
  });
});
