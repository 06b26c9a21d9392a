export { createTransformersAdapter, type TransformersAdapterOptions } from './transformers-engine.ts';
export { resolveDevice, type DeviceOption, type TransformersDevice } from './device.ts';
