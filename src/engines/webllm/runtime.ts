/**
 * What the adapter needs of web-llm itself at run time. web-llm is several megabytes of script,
 * so the adapter imports this module on the first load of one of its models, not when the engine
 * worker starts (most sessions never load a web-llm model, and none can without WebGPU).
 * @module
 */
export { MLCEngine, prebuiltAppConfig } from '@mlc-ai/web-llm';
export { withPrebuiltModels } from './prebuilt-models.ts';
export { buildAppConfig, pickVariant } from './app-config.ts';
export { loadFailure } from './load-failure.ts';
