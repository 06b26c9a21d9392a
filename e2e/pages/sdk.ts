/**
 * What the browser tests drive: the official SDKs, bundled as an app would bundle them, and the
 * client library. Tests call these through `page.evaluate`.
 */
import Anthropic from '@anthropic-ai/sdk';
import { setupWorker } from 'msw/browser';
import OpenAI from 'openai';
import { createWorkerEngine, installFetchShim, startInference, type Inference } from '../../src/client/index.ts';
import { createHandlers } from '../../src/msw/handlers.ts';

/** The slow synthetic engine (a test double, see the worker's header), for tests of long requests. */
const slowEngineWorker = () => new Worker(new URL('../workers/slow-engine-worker.ts', import.meta.url), { type: 'module', name: 'slow-engine' });

const harness = { OpenAI, Anthropic, startInference, installFetchShim, createWorkerEngine, createHandlers, setupWorker, slowEngineWorker };
declare global {
  interface Window {
    harness: typeof harness;
    /** Set by the tests' startRuntime. */
    inference: Inference;
    log: { progress: { status: string; model: string; device?: string }[]; hostChanges: boolean[] };
  }
}
window.harness = harness;
document.body.dataset.ready = 'true';
