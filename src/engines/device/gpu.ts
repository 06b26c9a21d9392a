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
  /** The adapter's features (`shader-f16`, `subgroups`, …), when there is one. */
  readonly features?: readonly string[];
  /** The adapter's limits that decide which models fit, when there is one. */
  readonly limits?: GpuLimits;
  /** `navigator.deviceMemory` in GB where the browser reports it (Chromium; rounded, capped at 8 or more). */
  readonly deviceMemoryGB?: number;
}

/** The WebGPU adapter limits a model's size and web-llm's runtime depend on. */
export interface GpuLimits {
  readonly maxBufferSize?: number;
  readonly maxStorageBufferBindingSize?: number;
  readonly maxComputeWorkgroupStorageSize?: number;
  readonly maxStorageBuffersPerShaderStage?: number;
}

const LIMIT_NAMES = ['maxBufferSize', 'maxStorageBufferBindingSize', 'maxComputeWorkgroupStorageSize', 'maxStorageBuffersPerShaderStage'] as const;

interface AdapterLike {
  readonly features: { has(name: string): boolean; forEach?(each: (name: string) => void): void };
  readonly limits?: Readonly<Record<string, number>>;
  readonly info?: { vendor?: string; architecture?: string; description?: string; isFallbackAdapter?: boolean };
  readonly isFallbackAdapter?: boolean;
}
interface GpuNavigator {
  readonly deviceMemory?: number;
  readonly gpu?: { requestAdapter(options?: { powerPreference?: 'high-performance' | 'low-power' }): Promise<AdapterLike | null> };
}

export async function probeGpu(): Promise<GpuReport> {
  const navigator = globalThis.navigator as GpuNavigator | undefined;
  const memory = typeof navigator?.deviceMemory === 'number' && navigator.deviceMemory > 0 ? { deviceMemoryGB: navigator.deviceMemory } : {};
  const gpu = navigator?.gpu;
  if (!gpu) return { webgpu: 'absent', shaderF16: false, software: false, ...memory };
  let adapter: AdapterLike | null = null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch {
    // A throwing request means the same as no adapter.
  }
  if (!adapter) return { webgpu: 'no-adapter', shaderF16: false, software: false, ...memory };
  const info = adapter.info ?? {};
  const names = `${info.vendor ?? ''} ${info.architecture ?? ''} ${info.description ?? ''}`.toLowerCase();
  return {
    webgpu: 'ok',
    vendor: info.vendor || undefined,
    architecture: info.architecture || undefined,
    description: info.description || undefined,
    shaderF16: adapter.features.has('shader-f16'),
    software: Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter) || /swiftshader|warp|llvmpipe|software/.test(names),
    features: featuresOf(adapter),
    limits: limitsOf(adapter),
    ...memory,
  };
}

function featuresOf(adapter: AdapterLike): string[] {
  const names: string[] = [];
  adapter.features.forEach?.((name) => names.push(name));
  return names.sort();
}

/** Read one by one: `GPUSupportedLimits` keeps its values on the prototype, which a spread would miss. */
function limitsOf(adapter: AdapterLike): GpuLimits {
  const limits: Record<string, number> = {};
  for (const name of LIMIT_NAMES) {
    const value = adapter.limits?.[name];
    if (typeof value === 'number') limits[name] = value;
  }
  return limits;
}
