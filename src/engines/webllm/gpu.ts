/**
 * What web-llm needs to know of the GPU: whether it can run at all, and which variant to load
 * (from the one probe, `engines/device/gpu.ts`).
 * @module
 */
import { probeGpu, type GpuLimits } from '../device/gpu.ts';

export interface GpuInfo {
  /** The adapter offers `shader-f16` (web-llm then enables it on its device). */
  readonly hasShaderF16: boolean;
  readonly vendor?: string;
  /** Every feature the adapter offers; unknown when absent (then only `shader-f16` is checked). */
  readonly features?: readonly string[];
  /** The adapter's limits (device-fit.ts); unknown when absent. */
  readonly limits?: GpuLimits;
  /** The memory the device reports (`navigator.deviceMemory`, GB); unknown when absent. */
  readonly deviceMemoryGB?: number;
}

export type GpuProbe = () => Promise<GpuInfo | null>;

/** `null` when there is no WebGPU (Node, older browsers) or no adapter (blocklisted GPU). */
export async function probeWebGPU(): Promise<GpuInfo | null> {
  const report = await probeGpu();
  if (report.webgpu !== 'ok') return null;
  return {
    hasShaderF16: report.shaderF16,
    vendor: report.vendor ?? report.description,
    ...(report.features ? { features: report.features } : {}),
    ...(report.limits ? { limits: report.limits } : {}),
    ...(report.deviceMemoryGB !== undefined ? { deviceMemoryGB: report.deviceMemoryGB } : {}),
  };
}
