/**
 * The WebGPU probe that decides whether web-llm can run at all and which variant to load. It asks
 * for the adapter the way web-llm does (`high-performance`), so both see the same GPU.
 * @module
 */

export interface GpuInfo {
  /** The adapter offers `shader-f16` (web-llm then enables it on its device). */
  readonly hasShaderF16: boolean;
  readonly vendor?: string;
}

export type GpuProbe = () => Promise<GpuInfo | null>;

interface GpuAdapterLike {
  readonly features: { has(feature: string): boolean };
  readonly info?: { readonly vendor?: string; readonly description?: string };
}

interface GpuNavigator {
  readonly gpu?: { requestAdapter(options?: { powerPreference?: string }): Promise<GpuAdapterLike | null> };
}

/** `null` when there is no WebGPU (Node, older browsers) or no adapter (blocklisted GPU). */
export async function probeWebGPU(): Promise<GpuInfo | null> {
  const gpu = (globalThis.navigator as GpuNavigator | undefined)?.gpu;
  if (!gpu) return null;
  try {
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    if (!adapter) return null;
    const vendor = adapter.info?.vendor || adapter.info?.description || undefined;
    return { hasShaderF16: adapter.features.has('shader-f16'), vendor };
  } catch {
    return null;
  }
}
