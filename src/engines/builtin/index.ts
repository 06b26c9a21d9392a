/**
 * The browser's built-in model (Prompt API): the adapter for the engine worker, the backend the
 * host page runs.
 * @module
 */
export { createBuiltinAdapter, type BuiltinAdapterOptions } from './builtin-adapter.ts';
export { createPromptApiBackend, NO_PROMPT_API } from './prompt-api-backend.ts';
export type { LanguageModelStatic } from './prompt-api.ts';
