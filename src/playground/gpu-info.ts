/**
 * What the browser offers for WebGPU, as the engines see it (their one probe), and why WASM is
 * used when it is, in words for the page.
 * @module
 */
import type { GpuReport } from '../engines/device/gpu.ts';

export type DeviceChoice = 'auto' | 'webgpu' | 'wasm';

export { probeGpu, type GpuReport } from '../engines/device/gpu.ts';

/** The backend transformers.js models will use: what the engine's `auto` resolves to. */
export function transformersBackend(report: GpuReport, choice: DeviceChoice): 'WebGPU' | 'WASM' {
  if (choice === 'wasm') return 'WASM';
  if (choice === 'webgpu') return 'WebGPU';
  // The engine's rule (engines/transformers/device.ts): a software adapter loses to WASM.
  return report.webgpu === 'ok' && !report.software ? 'WebGPU' : 'WASM';
}

/** One short line for the adapter, e.g. "nvidia · ampere". */
export function adapterName(report: GpuReport): string {
  return [report.vendor, report.architecture].filter(Boolean).join(' · ') || report.description || 'unnamed adapter';
}

/** Why WASM, in words a user can act on; undefined when WebGPU is used. */
export function wasmReason(report: GpuReport, choice: DeviceChoice): string | undefined {
  if (choice === 'wasm') return 'WASM chosen by ?device=wasm.';
  if (report.webgpu === 'absent') {
    return 'No WebGPU here (an older browser, or not a secure context): models run on the CPU through WebAssembly, and WebLLM models cannot run.';
  }
  if (report.webgpu === 'no-adapter') {
    return 'WebGPU offered no GPU adapter (a blocklisted driver, or hardware acceleration off): models run on WebAssembly.';
  }
  if (choice === 'auto' && report.software) {
    return 'The WebGPU adapter is a software one (it runs on the CPU), slower than WebAssembly: transformers.js models run on WASM (?device=webgpu forces WebGPU).';
  }
  return undefined;
}
