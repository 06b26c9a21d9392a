/**
 * What the browser offers for WebGPU, asked the way the engines ask (a high-performance adapter),
 * and why WASM is used when it is. Chromium reports vendor and architecture in `adapter.info`.
 * @module
 */

export type DeviceChoice = 'auto' | 'webgpu' | 'wasm';

export interface GpuReport {
  /** `absent`: no `navigator.gpu`; `no-adapter`: WebGPU present but no adapter offered. */
  readonly webgpu: 'ok' | 'absent' | 'no-adapter';
  readonly vendor?: string;
  readonly architecture?: string;
  readonly description?: string;
  readonly shaderF16: boolean;
  /** A software adapter (SwiftShader, WARP): correct but slow. */
  readonly software: boolean;
}

interface AdapterLike {
  readonly features: { has(name: string): boolean };
  readonly info?: { vendor?: string; architecture?: string; description?: string; device?: string; isFallbackAdapter?: boolean };
  readonly isFallbackAdapter?: boolean;
}
interface GpuLike {
  requestAdapter(options?: { powerPreference?: 'high-performance' | 'low-power' }): Promise<AdapterLike | null>;
}

export async function probeGpu(): Promise<GpuReport> {
  const gpu = (navigator as Navigator & { gpu?: GpuLike }).gpu;
  if (!gpu) return { webgpu: 'absent', shaderF16: false, software: false };
  let adapter: AdapterLike | null = null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch {
    // A throwing request means the same as no adapter.
  }
  if (!adapter) return { webgpu: 'no-adapter', shaderF16: false, software: false };
  const info = adapter.info ?? {};
  const names = `${info.vendor ?? ''} ${info.architecture ?? ''} ${info.description ?? ''}`.toLowerCase();
  return {
    webgpu: 'ok',
    vendor: info.vendor || undefined,
    architecture: info.architecture || undefined,
    description: info.description || undefined,
    shaderF16: adapter.features.has('shader-f16'),
    software: Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter) || /swiftshader|warp|llvmpipe|software/.test(names),
  };
}

/** The backend transformers.js models will use: what the engine's `auto` resolves to. */
export function transformersBackend(report: GpuReport, choice: DeviceChoice): 'WebGPU' | 'WASM' {
  if (choice === 'wasm') return 'WASM';
  if (choice === 'webgpu') return 'WebGPU';
  return report.webgpu === 'ok' ? 'WebGPU' : 'WASM';
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
  return undefined;
}
