export { createWebLLMAdapter, type WebLLMAdapterOptions } from './webllm-adapter.ts';
export { buildAppConfig, findPrebuiltRecord, pickVariant, type AppConfigOptions, type SelfHost } from './app-config.ts';
export { createProgressMapper, parsePhase, type LoadPhase, type StageProgress } from './progress.ts';
export { probeWebGPU, type GpuInfo, type GpuProbe } from './gpu.ts';
export type { CreateMLCEngine, MLCEngineLike, MLCEngineOptions, WebLLMChatRequest, WebLLMChunk, WebLLMEmbeddingResponse, WebLLMMessage } from './mlc-engine-like.ts';
