/**
 * Picks the onnxruntime backend. In Node only the native CPU backend works (WebGPU in Node finds
 * no adapter). In a browser, `auto` takes WebGPU on a hardware adapter and WASM otherwise: a
 * software adapter (SwiftShader, WARP, llvmpipe, or one that says it is a fallback) runs the same
 * shaders on the CPU, several times slower than onnxruntime's own WASM kernels on every model
 * measured (see docs/decisions/auto-backend.md). The choice comes with its reason, for the models
 * API and the playground.
 * @module
 */

export type TransformersDevice = 'cpu' | 'wasm' | 'webgpu';
import type { DeviceOption } from '../../contracts/worker-config.ts';
import { probeGpu } from '../device/gpu.ts';

export type { DeviceOption };

export interface DeviceChoice {
  readonly device: TransformersDevice;
  /** Why this backend, in words. */
  readonly reason: string;
}

export async function chooseDevice(option: DeviceOption = 'auto'): Promise<DeviceChoice> {
  if (option !== 'auto') return { device: option, reason: `set to ${option}` };
  if (globalThis.process?.versions?.node !== undefined) return { device: 'cpu', reason: 'auto: Node runs onnxruntime on the CPU' };
  const gpu = await probeGpu();
  if (gpu.webgpu === 'absent') return { device: 'wasm', reason: 'auto: this browser has no WebGPU' };
  if (gpu.webgpu === 'no-adapter') return { device: 'wasm', reason: 'auto: this browser offers no WebGPU adapter' };
  const name = gpu.description || gpu.architecture || gpu.vendor || 'unnamed';
  if (gpu.software) return { device: 'wasm', reason: `auto: the WebGPU adapter (${name}) is a software one, slower than WASM` };
  return { device: 'webgpu', reason: `auto: hardware WebGPU adapter (${name})` };
}

export async function resolveDevice(option: DeviceOption = 'auto'): Promise<TransformersDevice> {
  return (await chooseDevice(option)).device;
}

/** Whether this context offers a WebGPU adapter (what onnxruntime's WebGPU backend needs). */
export async function supportsWebGPU(): Promise<boolean> {
  return (await probeGpu()).webgpu === 'ok';
}
