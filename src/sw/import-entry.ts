/**
 * The prebuilt script an app's own service worker imports (`importScripts('/inpage-llm/handle-inference.js')`,
 * or `import` from a module worker): adds the inference handling with the registration URL's
 * settings, and puts the runtime precache helpers on `self.inpageLLM` for a worker with no
 * bundler (`inpageLLM.precacheRuntime()` at install, `inpageLLM.handleRuntime(event)` in fetch).
 * @module
 */
import { handleInference } from './handle-inference.ts';
import { handleInpageRuntime, inpageRuntimeEntries, matchInpageRuntime, precacheInpageRuntime } from './runtime-precache.ts';

const inference = handleInference();

/** What `self.inpageLLM` holds in a worker that imported this script. */
export interface InpageLLMGlobal {
  readonly inference: typeof inference;
  readonly precacheRuntime: typeof precacheInpageRuntime;
  readonly handleRuntime: typeof handleInpageRuntime;
  readonly matchRuntime: typeof matchInpageRuntime;
  readonly runtimeEntries: typeof inpageRuntimeEntries;
}

(self as unknown as { inpageLLM: InpageLLMGlobal }).inpageLLM = {
  inference,
  precacheRuntime: precacheInpageRuntime,
  handleRuntime: handleInpageRuntime,
  matchRuntime: matchInpageRuntime,
  runtimeEntries: inpageRuntimeEntries,
};
