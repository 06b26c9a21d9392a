/**
 * The prebuilt script an app's own service worker imports (`importScripts('/inpage-llm/handle-inference.js')`,
 * or `import` from a module worker): adds the inference handling with the registration URL's
 * settings, and nothing else.
 * @module
 */
import { handleInference } from './handle-inference.ts';

handleInference();
