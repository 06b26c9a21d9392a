/**
 * The engine worker's settings, sent by the page that starts it (`CONFIGURE`, see
 * control-messages.ts) before the first connection. Everything is optional.
 * @module
 */

/** transformers.js backend: `auto` (WebGPU when there is an adapter, else WASM), or one of them. */
export type DeviceOption = 'cpu' | 'wasm' | 'webgpu' | 'auto';

/** Serve web-llm weights and libraries from your own origin instead of Hugging Face and GitHub. */
export interface SelfHost {
  /** Folder holding one sub-folder per `model_id` (served under `<model_id>/resolve/main/`). */
  readonly modelBase: string;
  /** Folder holding the `.wasm` model libraries under their original file names. */
  readonly libBase: string;
}

export interface WorkerConfig {
  /** transformers.js backend: `auto` (WebGPU when there is an adapter, else WASM), `webgpu` or `wasm`. */
  readonly device?: DeviceOption;
  /** Models kept in memory at once (default 2). */
  readonly maxLoaded?: number;
  /** Serve web-llm models and libraries from these folders instead of their public sources. */
  readonly webllmSelfHost?: SelfHost;
  /** Where transformers.js fetches models that are not bundled (default: the Hugging Face hub). */
  readonly transformersRemoteHost?: string;
}
