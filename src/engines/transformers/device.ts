/**
 * Picks the onnxruntime backend. In Node only the native CPU backend works (WebGPU in Node finds
 * no adapter); in a browser WebGPU is used when an adapter exists, else WebAssembly.
 * @module
 */

export type TransformersDevice = 'cpu' | 'wasm' | 'webgpu';
export type DeviceOption = TransformersDevice | 'auto';

interface GpuNavigator {
  readonly gpu?: { requestAdapter(): Promise<unknown> };
}

export async function resolveDevice(option: DeviceOption = 'auto'): Promise<TransformersDevice> {
  if (option !== 'auto') return option;
  if (globalThis.process?.versions?.node !== undefined) return 'cpu';
  const gpu = (globalThis.navigator as GpuNavigator | undefined)?.gpu;
  try {
    if (gpu && (await gpu.requestAdapter())) return 'webgpu';
  } catch {
    // A failing adapter request means no usable GPU.
  }
  return 'wasm';
}
