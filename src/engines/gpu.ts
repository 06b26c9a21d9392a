/**
 * The one WebGPU probe: what this context offers, asked the way web-llm asks (a high-performance
 * adapter), so that the engines, the models API and the playground all see the same GPU.
 * Chromium reports vendor and architecture in `adapter.info`.
 * @module
 */

export interface GpuReport {
  /** `absent`: no `navigator.gpu` (Node, older browsers); `no-adapter`: WebGPU present but no adapter (a blocklisted GPU). */
  readonly webgpu: 'ok' | 'absent' | 'no-adapter';
  readonly vendor?: string;
  readonly architecture?: string;
  readonly description?: string;
  readonly shaderF16: boolean;
  /** A software adapter (SwiftShader, WARP, llvmpipe): correct but slow. */
  readonly software: boolean;
}

interface AdapterLike {
  readonly features: { has(name: string): boolean };
  readonly info?: { vendor?: string; architecture?: string; description?: string; isFallbackAdapter?: boolean };
  readonly isFallbackAdapter?: boolean;
}
interface GpuNavigator {
  readonly gpu?: { requestAdapter(options?: { powerPreference?: 'high-performance' | 'low-power' }): Promise<AdapterLike | null> };
}

export async function probeGpu(): Promise<GpuReport> {
  const gpu = (globalThis.navigator as GpuNavigator | undefined)?.gpu;
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
