/** The page-side library: what an app imports. @module */
export { startInference } from './start-inference.ts';
export type { Inference, StartOptions } from './start-inference.ts';
export { installFetchShim } from './fetch-shim.ts';
export type { FetchShim, FetchShimOptions } from './fetch-shim.ts';
export { createWorkerEngine } from './worker-engine.ts';
export type { LoadProgress } from '../contracts/model-progress.ts';
export type { ModelStatus } from '../contracts/model-progress.ts';
export type { EngineExit } from '../contracts/control-messages.ts';
export type { WorkerConfig, ModelEntry, TransformersModelEntry, WebLLMModelEntry, RemoteModelEntry } from '../contracts/worker-config.ts';
export type { UpstreamSpec, UpstreamFlavour } from '../core/upstream-spec.ts';
