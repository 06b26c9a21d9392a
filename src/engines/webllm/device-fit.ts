/**
 * Whether a web-llm model can run on this device, and if not why, from what its record says it
 * needs and what the WebGPU adapter offers, asked before anything is downloaded. The limits are
 * the ones web-llm's runtime asks its device for (`detectGPUDevice` in 0.2.x): below them no
 * web-llm model starts, whatever its size.
 * @module
 */
import type { ModelRecord } from '@mlc-ai/web-llm';
import type { GpuInfo } from './gpu.ts';
import { needsShaderF16 } from './prebuilt-models.ts';

export type Fit = { readonly runnable: true } | { readonly runnable: false; readonly reason: string };

const MiB = 1 << 20;

/** web-llm's smallest acceptable adapter limits (it asks for more where the adapter has it). */
export const WEBLLM_MIN_LIMITS = {
  maxBufferSize: 256 * MiB,
  maxStorageBufferBindingSize: 128 * MiB,
  maxComputeWorkgroupStorageSize: 32 * 1024,
  maxStorageBuffersPerShaderStage: 10,
} as const;

/**
 * A device that reports this much memory or less (`navigator.deviceMemory`, in GB, rounded down
 * and capped by the browser) is a low-memory one: only models web-llm marks
 * `low_resource_required` (fit for phones) are offered there.
 */
export const LOW_MEMORY_GB = 4;

export const NO_WEBGPU = 'WebGPU is not available here (no adapter), and WebLLM models run only on WebGPU.';

export function fitOf(record: ModelRecord, gpu: GpuInfo | null): Fit {
  if (!gpu) return { runnable: false, reason: NO_WEBGPU };
  const limits = gpu.limits;
  if (limits) {
    for (const [name, needed] of Object.entries(WEBLLM_MIN_LIMITS) as [keyof typeof WEBLLM_MIN_LIMITS, number][]) {
      const has = limits[name];
      if (has !== undefined && has < needed) return { runnable: false, reason: `The WebGPU adapter's ${name} is ${amount(name, has)}, below the ${amount(name, needed)} web-llm needs to run any model.` };
    }
  }
  if (needsShaderF16(record) && !gpu.hasShaderF16) {
    return { runnable: false, reason: `"${record.model_id}" runs f16 shaders, and this GPU's WebGPU adapter lacks the shader-f16 feature: use its q4f32 variant, or the short id, which picks it.` };
  }
  for (const feature of record.required_features ?? []) {
    if (feature !== 'shader-f16' && gpu.features && !gpu.features.includes(feature)) return { runnable: false, reason: `"${record.model_id}" needs the WebGPU feature ${feature}, which this GPU's adapter lacks.` };
  }
  // web-llm asks for a 1 GiB binding where the adapter allows it, else for 128 MiB, and a model that
  // binds more than its device has fails at load.
  const binding = limits?.maxStorageBufferBindingSize;
  if (binding !== undefined && record.buffer_size_required_bytes !== undefined) {
    const granted = binding >= 1024 * MiB ? 1024 * MiB : WEBLLM_MIN_LIMITS.maxStorageBufferBindingSize;
    if (record.buffer_size_required_bytes > granted) {
      return { runnable: false, reason: `"${record.model_id}" binds ${mib(record.buffer_size_required_bytes)} MiB buffers, more than the ${mib(granted)} MiB web-llm can get from this GPU's adapter (maxStorageBufferBindingSize ${mib(binding)} MiB).` };
    }
  }
  const memory = gpu.deviceMemoryGB;
  if (memory !== undefined && memory <= LOW_MEMORY_GB) {
    if (!record.low_resource_required) return { runnable: false, reason: `This device reports ${memory} GB of memory, and web-llm does not mark "${record.model_id}" fit for low-memory devices (it needs ${vram(record)}).` };
    if (record.vram_required_MB !== undefined && record.vram_required_MB > memory * 1024) {
      return { runnable: false, reason: `"${record.model_id}" needs ${vram(record)}, more than the ${memory} GB of memory this device reports.` };
    }
  }
  return { runnable: true };
}

/** What a record asks of the device, as `GET /models` lists it (`webgpu`, `shader-f16`, other features). */
export function requirementsOf(record: ModelRecord): string[] {
  const features = new Set(record.required_features ?? []);
  if (needsShaderF16(record)) features.add('shader-f16');
  return ['webgpu', ...[...features].sort((a, b) => (a === 'shader-f16' ? -1 : b === 'shader-f16' ? 1 : a.localeCompare(b)))];
}

const mib = (bytes: number) => Math.round(bytes / MiB);
const vram = (record: ModelRecord) => (record.vram_required_MB === undefined ? 'an unknown amount of GPU memory' : `about ${Math.round(record.vram_required_MB)} MB of GPU memory`);
const amount = (name: string, value: number) => (name.endsWith('Size') ? (value >= MiB ? `${mib(value)} MiB` : `${Math.round(value / 1024)} KiB`) : String(value));
