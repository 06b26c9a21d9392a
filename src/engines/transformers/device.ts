/**
 * Picks the onnxruntime backend. In Node only the native CPU backend works (WebGPU in Node finds
 * no adapter); in a browser WebGPU is used when an adapter exists, else WebAssembly.
 * @module
 */

export type TransformersDevice = 'cpu' | 'wasm' | 'webgpu';
import type { DeviceOption } from '../../contracts/worker-config.ts';
import { probeGpu } from '../gpu.ts';

export type { DeviceOption };

export async function resolveDevice(option: DeviceOption = 'auto'): Promise<TransformersDevice> {
  if (option !== 'auto') return option;
  if (globalThis.process?.versions?.node !== undefined) return 'cpu';
  return (await supportsWebGPU()) ? 'webgpu' : 'wasm';
}

/** Whether this context offers a WebGPU adapter (what onnxruntime's WebGPU backend needs). */
export async function supportsWebGPU(): Promise<boolean> {
  return (await probeGpu()).webgpu === 'ok';
}
