/**
 * What web-llm needs to know of the GPU: whether it can run at all, and which variant to load
 * (from the one probe, `engines/gpu.ts`).
 * @module
 */
import { probeGpu } from '../gpu.ts';

export interface GpuInfo {
  /** The adapter offers `shader-f16` (web-llm then enables it on its device). */
  readonly hasShaderF16: boolean;
  readonly vendor?: string;
}

export type GpuProbe = () => Promise<GpuInfo | null>;

/** `null` when there is no WebGPU (Node, older browsers) or no adapter (blocklisted GPU). */
export async function probeWebGPU(): Promise<GpuInfo | null> {
  const report = await probeGpu();
  return report.webgpu === 'ok' ? { hasShaderF16: report.shaderF16, vendor: report.vendor ?? report.description } : null;
}
