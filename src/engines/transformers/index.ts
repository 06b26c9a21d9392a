export { createTransformersAdapter, type TransformersAdapterOptions, type TransformersModelSpec } from './transformers-engine.ts';
export { resolveDevice, type DeviceOption, type TransformersDevice } from './device.ts';
export { tinyModelSpecs } from './tiny-model-specs.ts';
