/**
 * What the browser tests drive: the official SDKs, bundled as an app would bundle them, and the
 * client library. Tests call these through `page.evaluate`.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import Anthropic from '@anthropic-ai/sdk';
import { Agent, OpenAIProvider, run, Runner, setDefaultOpenAIClient, setTracingDisabled, tool as agentTool } from '@openai/agents';
import { generateObject, generateText, jsonSchema, Output, stepCountIs, streamObject, streamText, tool } from 'ai';
import { setupWorker } from 'msw/browser';
import OpenAI from 'openai';
import { zodResponsesFunction, zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { createWorkerEngine, installFetchShim, startInference, type Inference } from '../../src/client/index.ts';
import { createHandlers } from '../../src/msw/handlers.ts';
import { createIndexedDBResponseStore } from '../../src/storage/indexeddb-response-store.ts';
import { createLanguageModelDouble } from '../../test/support/language-model-double.ts';

/** The browser's own fetch, kept before `startInference` wraps it: its requests reach the service worker. */
const networkFetch = globalThis.fetch.bind(globalThis);

/** The slow synthetic engine (a test double, see the worker's header), for tests of long requests. */
const slowEngineWorker = () => new Worker(new URL('../workers/slow-engine-worker.ts', import.meta.url), { type: 'module', name: 'slow-engine' });

/**
 * The Vercel AI SDK with its OpenAI (Responses API by default), OpenAI-compatible and Anthropic
 * providers, and zod for its schemas.
 */
const aiSdk = { generateText, streamText, generateObject, streamObject, Output, tool, jsonSchema, stepCountIs, createOpenAI, createOpenAICompatible, createAnthropic, z };

/** The OpenAI Agents SDK (its models call the Responses API). */
const agents = { Agent, OpenAIProvider, run, Runner, setDefaultOpenAIClient, setTracingDisabled, tool: agentTool };

const harness = { OpenAI, zodTextFormat, zodResponsesFunction, Anthropic, startInference, installFetchShim, createWorkerEngine, createHandlers, setupWorker, slowEngineWorker, aiSdk, agents, networkFetch, createIndexedDBResponseStore, createLanguageModelDouble };
declare global {
  interface Window {
    harness: typeof harness;
    /** Set by the tests' startRuntime. */
    inference: Inference;
    log: {
      progress: { status: string; model: string; device?: string; file?: string; loaded?: number; total?: number; cached?: boolean }[];
      hostChanges: boolean[];
      engineExits: ({ reason: string; message: string; at: string } | null)[];
    };
  }
}
window.harness = harness;
document.body.dataset.ready = 'true';
