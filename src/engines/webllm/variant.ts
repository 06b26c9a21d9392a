/**
 * Which web-llm variant of a catalog model runs on a GPU, in a module of its own: the adapter
 * needs it to report what a model requires before web-llm itself (megabytes of script) is loaded.
 * @module
 */
import type { WebLLMModelSpec } from '../catalog/webllm-model-spec.ts';

/** The variant to load: the f16 one only where the GPU can run f16 shaders. */
export function pickVariant(spec: WebLLMModelSpec, hasShaderF16: boolean): string {
  return hasShaderF16 && spec.variants.f16 !== undefined ? spec.variants.f16 : spec.variants.f32;
}

/** Whether a variant id is the f16 one, which needs the GPU's `shader-f16` feature. */
export function needsShaderF16(spec: WebLLMModelSpec, variant: string): boolean {
  return spec.variants.f16 !== undefined && variant === spec.variants.f16;
}
