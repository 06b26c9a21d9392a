/**
 * Setup of the main page: the product as an app starts it, a direct engine handle (which the
 * fetch shim also uses), an idle product engine worker for the RPC ping, transformers.js in a
 * plain worker, and the floor iframe. Setup fails the run unless each service worker controls its
 * own page only and every path gives the same answer.
 * @module
 */
import { createWorkerEngine, installFetchShim, startInference, type Inference } from '../../../src/client/index.ts';
import { spawnEngineWorker, type EngineWorker } from '../../../src/client/spawn-worker.ts';
import type { Engine } from '../../../src/core/engine.ts';
import type { Floor } from '../floor.ts';
import { config, log } from '../lib/channel.ts';
import { spawnRawEngine, type RawEngine } from '../lib/raw-engine.ts';
import { drain, nativeFetch } from './client.ts';
import { firstVector } from './embedding-requests.ts';
import { countMessages } from './message-traffic.ts';
import { CHAT_MODEL, chatBody, chatRequest, device, EMBED_MODEL, EMBED_TEXT, embedBody, post, SHIM_BASE, signal } from './workload.ts';

export interface Runtime {
  inference: Inference;
  direct: Engine & { terminate(): void };
  /** A third product engine worker, never given a model: its comlink `ping` is the product's RPC round trip. */
  idle: EngineWorker;
  raw: RawEngine;
  floor: Floor;
}

/** The floor page in a same-origin iframe, controlled by the bare service worker. */
export async function openFloor(): Promise<Floor> {
  const frame = document.createElement('iframe');
  frame.src = '/bench/floor/';
  const loaded = new Promise<void>((resolve) => frame.addEventListener('load', () => resolve(), { once: true }));
  document.body.append(frame);
  await loaded;
  const floor = (frame.contentWindow as Window & { floor: Floor }).floor;
  await floor.ready;
  return floor;
}

/** Starts every runtime and checks it; `checks` carries what setup found for the report. */
export async function setup(): Promise<{ runtime: Runtime; checks: Record<string, unknown> }> {
  await log(`setup: device ${device}, profile ${config.profile}, crossOriginIsolated ${crossOriginIsolated}`);
  // Through the service worker: the page's own requests would otherwise be answered in the page.
  const inference = await startInference({ engine: { device }, inPage: false });
  await inference.load(CHAT_MODEL);
  await inference.load(EMBED_MODEL);
  const direct = createWorkerEngine({ device });
  installFetchShim({ engine: direct, baseUrl: SHIM_BASE });
  const idle = spawnEngineWorker({ device });
  await idle.api.ping();
  const raw = spawnRawEngine();
  await raw.load(device, { chat: CHAT_MODEL, embedding: EMBED_MODEL });
  const floor = await openFloor();

  // The two service workers must each control their own page only.
  const product = navigator.serviceWorker.controller?.scriptURL ?? '';
  if (!new URL(product).pathname.endsWith('/inpage-llm-sw.js')) throw new Error(`The bench page is controlled by ${product}, not the product's /inpage-llm-sw.js.`);
  if (!floor.controller()?.endsWith('/bench/floor-sw.js')) throw new Error(`The floor page is controlled by ${floor.controller()}, not the bare floor service worker.`);

  // Every path gives the same answer: the engines are loaded and the comparisons are like for like.
  const checks: Record<string, unknown> = {};
  const viaSw = await (await nativeFetch('/v1/chat/completions', post(chatBody(1)))).json();
  const viaShim = await (await fetch(`${SHIM_BASE}/chat/completions`, post(chatBody(1)))).json();
  let directText = '';
  for await (const e of direct.chat(chatRequest(1), { signal })) if (e.type === 'token') directText += e.text;
  if (viaSw.usage?.completion_tokens !== 1 || viaSw.choices[0].message.content !== directText || viaShim.choices[0].message.content !== directText) {
    throw new Error(`Chat paths disagree: sw ${JSON.stringify(viaSw)}, shim ${JSON.stringify(viaShim)}, direct '${directText}'.`);
  }
  const swVector = await firstVector(await nativeFetch('/v1/embeddings', post(embedBody(EMBED_TEXT))));
  const directVector = (await direct.embed({ model: EMBED_MODEL, input: [EMBED_TEXT] }, { signal })).embeddings[0]!;
  const rawVector = (await raw.embed([EMBED_TEXT]))[0]!;
  const diff = (a: Float32Array, b: Float32Array) => Math.max(...Array.from(a, (v, i) => Math.abs(v - b[i]!)));
  if (swVector.length !== directVector.length || diff(swVector, directVector) !== 0) throw new Error('The service worker and direct embeddings differ.');
  checks.rawVsProductEmbeddingMaxAbsDiff = diff(rawVector, directVector);
  // MessagePort messages the page sends and receives for one request on each in-page path.
  const shimChat = async () => (await fetch(`${SHIM_BASE}/chat/completions`, post(chatBody(1)))).json();
  const shimEmbed = async () => (await fetch(`${SHIM_BASE}/embeddings`, post(embedBody(EMBED_TEXT)))).json();
  checks.messagesPerRequest = {
    'chat 1 token, direct': await countMessages(() => drain(direct.chat(chatRequest(1), { signal }))),
    'chat 1 token, fetch shim': await countMessages(shimChat),
    'chat 40 tokens streamed, direct': await countMessages(() => drain(direct.chat(chatRequest(40), { signal }))),
    'embed 1 text, direct': await countMessages(() => direct.embed({ model: EMBED_MODEL, input: [EMBED_TEXT] }, { signal })),
    'embed 1 text, fetch shim': await countMessages(shimEmbed),
    'comlink ping': await countMessages(() => idle.api.ping()),
  };
  await log(`setup done; product controller ${product}, floor controller ${floor.controller()}`);
  return { runtime: { inference, direct, idle, raw, floor }, checks };
}
