/**
 * The benchmark page at real model sizes: the real-shaped generated models (`npm run models:real`,
 * an all-MiniLM-L6-v2-shaped embedder and a Qwen2.5-0.5B-shaped q4 decoder, served by the bench
 * server under /inpage-llm/models/), through the product's service worker against direct engine
 * calls (`createWorkerEngine`, the same engine code over a MessagePort) and the browser's floor
 * (a bare service worker relaying to a bare worker, and the bare worker alone). Then how each cost
 * grows with the work: input length, concurrency, prompt length, generated length, models loaded.
 * Timing happens here, paths interleaved round by round; the result goes to bench/run.ts.
 * @module
 */
import { wrap } from 'comlink';
import { createWorkerEngine, startInference } from '../../src/client/index.ts';
import { spawnEngineWorker } from '../../src/client/spawn-worker.ts';
import type { EngineHostApi } from '../../src/contracts/engine-host.ts';
import type { ChatRequest, Engine } from '../../src/core/engine.ts';
import { linkEngine } from '../../src/rpc/engine-link.ts';
import type { ModelEntry } from '../../src/contracts/worker-config.ts';
import { SECTIONS } from '../driver/options.ts';
import type { CurvePoint, RealSizeResult } from '../driver/real-size-results.ts';
import { byProfile, config, fail, finish, log } from './lib/channel.ts';
import { balanced, summarize, timeEach } from './lib/stats.ts';
import { expectOk, nativeFetch } from './main/client.ts';
import { firstVector } from './main/embedding-requests.ts';
import { environment } from './main/environment.ts';
import { sampleMemory } from './main/memory.ts';
import { openFloor } from './main/runtime.ts';
import { offerEnginePort, stopProductHost } from './main/service-worker-link.ts';
import { readSSE } from './main/sse.ts';

const real = config.real!;
const device = config.device;
const signal = new AbortController().signal;
const EMBED = real.embed.id;
const CHAT = real.chat.id;
const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const text = (tokens: number) => real.embedTexts[String(tokens)]!;
const prompt = (tokens: number) => [{ role: 'user' as const, content: real.prompts[String(tokens)]! }];

const models: ModelEntry[] = [
  { engine: 'transformers', id: EMBED, kind: 'embedding', source: EMBED, dtype: real.embed.dtype, contextWindow: 512, dimensions: 384, files: real.embed.files },
  { engine: 'transformers', id: CHAT, kind: 'chat', source: CHAT, dtype: real.chat.dtype, contextWindow: 4096, maxOutputTokens: 512, files: real.chat.files },
];

/** The page's sections (`--sections` picks some; all by default). */
const sections = new Set<string>(config.sections ?? SECTIONS.real);

/** Rounds of a comparison: each round runs every path once, in an order rotated by one. */
async function rounds<T extends string>(count: number, paths: readonly T[], run: (path: T) => Promise<number[]>): Promise<Record<T, number[]>> {
  const samples = Object.fromEntries(paths.map((p) => [p, [] as number[]])) as Record<T, number[]>;
  for (let r = 0; r < count; r++) {
    for (let i = 0; i < paths.length; i++) {
      const path = paths[(i + r) % paths.length]!;
      samples[path].push(...(await run(path)));
    }
  }
  return samples;
}

const median = (values: readonly number[]) => summarize(values).median;

/** Time to the first token from `t0`, and the rate from the first token to the last. */
function streamFigures(t0: number, arrivals: readonly number[]): { first: number; rate: number } {
  return { first: arrivals[0]! - t0, rate: (arrivals.length - 1) / ((arrivals.at(-1)! - arrivals[0]!) / 1000) };
}

async function main(): Promise<void> {
  const env = await environment();
  await log(`real-size: device ${device}, profile ${config.profile}; loading ${EMBED} and ${CHAT} in two engine workers`);
  const inference = await startInference({ engine: { device, models, maxLoaded: 2 }, inPage: false });
  const loadStarted = performance.now();
  await inference.load(EMBED);
  await inference.load(CHAT);
  const direct = createWorkerEngine({ device, models, maxLoaded: 2 });
  await direct.embed({ model: EMBED, input: ['warm'] }, { signal });
  for await (const _ of direct.chat({ model: CHAT, messages: prompt(16), maxTokens: 1, stop: [] }, { signal }));
  const floor = await openFloor();
  await log(`real-size: loaded in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);

  // Same answers on both routes: the comparisons are like for like.
  const swVector = await firstVector(await nativeFetch('/v1/embeddings', json({ model: EMBED, input: text(16), encoding_format: 'base64' })));
  const directVector = (await direct.embed({ model: EMBED, input: [text(16)] }, { signal })).embeddings[0]!;
  if (swVector.length !== directVector.length || swVector.some((v, i) => v !== directVector[i])) throw new Error('The service worker and direct embeddings differ.');
  const checks: Record<string, unknown> = { embeddingsIdentical: true, dimensions: swVector.length };

  const swEmbed = (input: string | string[]) => nativeFetch('/v1/embeddings', json({ model: EMBED, input, encoding_format: 'base64' })).then((r) => expectOk(r, 'embeddings').arrayBuffer());
  const directEmbed = (input: string | string[], engine: Engine = direct) => engine.embed({ model: EMBED, input: typeof input === 'string' ? [input] : input }, { signal });
  const chatRequest = (tokens: number, maxTokens: number): ChatRequest => ({ model: CHAT, messages: prompt(tokens), maxTokens, stop: [] });
  const swChatWhole = (tokens: number) => nativeFetch('/v1/chat/completions', json({ model: CHAT, messages: prompt(tokens), max_tokens: 1 })).then((r) => expectOk(r, 'chat').json());
  const directChatWhole = async (tokens: number) => {
    for await (const _ of direct.chat(chatRequest(tokens, 1), { signal }));
  };

  /** A stream's time to first token and decode rate (first to last token). */
  const swStream = async (tokens: number, maxTokens: number) => {
    const t0 = performance.now();
    const arrivals: number[] = [];
    const response = expectOk(await nativeFetch('/v1/chat/completions', json({ model: CHAT, messages: prompt(tokens), max_tokens: maxTokens, stream: true })), 'stream');
    await readSSE(response, (data) => {
      if (data !== '[DONE]' && JSON.parse(data).choices?.[0]?.delta?.content) arrivals.push(performance.now());
    });
    return streamFigures(t0, arrivals);
  };
  const directStream = async (tokens: number, maxTokens: number, engine: Engine = direct) => {
    const t0 = performance.now();
    const arrivals: number[] = [];
    for await (const event of engine.chat(chatRequest(tokens, maxTokens), { signal })) if (event.type === 'token') arrivals.push(performance.now());
    return streamFigures(t0, arrivals);
  };

  const oneText = text(16);
  const floorBody = JSON.stringify({ model: EMBED, input: oneText });
  const maxTokens = byProfile({ quick: 8, short: 16, full: 32 });
  const texts = Array.from({ length: 256 }, (_, i) => `${text(16)} ${i}`);
  const reps = byProfile({ quick: 3, short: 5, full: 10 });
  let embedOne: Record<string, number[]> = {};
  let chatOne: Record<string, number[]> = {};
  const streams: Record<'sw' | 'direct', { first: number; rate: number }[]> = { sw: [], direct: [] };
  const batching = { concurrentSw: [] as number[], sequentialDirect: [] as number[], oneRequestSw: [] as number[], oneRequestDirect: [] as number[] };
  if (sections.has('main')) {
    // One text, one request at a time: the product against direct calls and the browser's floor.
    await log('real-size: one-text embeddings');
    // floor: a bare service worker relaying to a bare worker; floor worker: that worker asked directly.
    embedOne = await rounds(byProfile({ quick: 3, short: 5, full: 10 }), ['sw', 'direct', 'floor', 'floor worker'] as const, async (path) => {
      const n = byProfile({ quick: 10, short: 20, full: 30 });
      if (path === 'sw') return timeEach(n, () => swEmbed(oneText));
      if (path === 'direct') return timeEach(n, () => directEmbed(oneText));
      await floor.refresh();
      return floor.latency(path === 'floor' ? 'sw-relay' : 'worker', n, floorBody);
    });

    await log('real-size: one-token chat');
    chatOne = await rounds(byProfile({ quick: 2, short: 3, full: 5 }), ['sw', 'direct'] as const, (path) =>
      timeEach(byProfile({ quick: 3, short: 5, full: 8 }), () => (path === 'sw' ? swChatWhole(16) : directChatWhole(16))),
    );

    await log('real-size: streaming');
    await rounds(byProfile({ quick: 2, short: 3, full: 5 }), ['sw', 'direct'] as const, async (path) => {
      streams[path].push(await (path === 'sw' ? swStream(16, maxTokens) : directStream(16, maxTokens)));
      return [];
    });

    await log('real-size: batching');
    await rounds(byProfile({ quick: 1, short: 2, full: 3 }), ['concurrentSw', 'sequentialDirect', 'oneRequestSw', 'oneRequestDirect'] as const, async (path) => {
      const t0 = performance.now();
      if (path === 'concurrentSw') await Promise.all(texts.map((t) => swEmbed(t)));
      else if (path === 'sequentialDirect') for (const t of texts) await directEmbed(t);
      else if (path === 'oneRequestSw') await swEmbed(texts);
      else await directEmbed(texts);
      batching[path].push(performance.now() - t0);
      return [];
    });
  }

  // How cost grows.
  const embedLatencyVsTokens: CurvePoint[] = [];
  const embedThroughputVsConcurrency: CurvePoint[] = [];
  const ttftVsPromptTokens: CurvePoint[] = [];
  const decodeRateVsLength: CurvePoint[] = [];
  if (sections.has('curves')) {
    await log('real-size: curves');
    for (const tokens of [8, 32, 128, 512]) {
      const s = await rounds(1, ['sw', 'direct'] as const, (path) => timeEach(reps, () => (path === 'sw' ? swEmbed(text(tokens)) : directEmbed(text(tokens)))));
      embedLatencyVsTokens.push({ x: tokens, values: { sw: median(s.sw), direct: median(s.direct) } });
    }
    for (const n of [1, 4, 16, 64, 256]) {
      const batch = texts.slice(0, n);
      const s = await rounds(byProfile({ quick: 1, short: 2, full: 3 }), ['sw', 'direct'] as const, async (path) => {
        const t0 = performance.now();
        await Promise.all(batch.map((t) => (path === 'sw' ? swEmbed(t) : directEmbed(t))));
        return [n / ((performance.now() - t0) / 1000)];
      });
      embedThroughputVsConcurrency.push({ x: n, values: { sw: median(s.sw), direct: median(s.direct) } });
    }
    for (const tokens of [16, 64, 256]) {
      const s = await rounds(byProfile({ quick: 1, short: 2, full: 3 }), ['sw', 'direct'] as const, async (path) => [(await (path === 'sw' ? swStream(tokens, 2) : directStream(tokens, 2))).first]);
      ttftVsPromptTokens.push({ x: tokens, values: { sw: median(s.sw), direct: median(s.direct) } });
    }
    for (const length of byProfile({ quick: [4, 8, 16], short: [8, 16, 32], full: [8, 32, 64] })) {
      const s = await rounds(1, ['sw', 'direct'] as const, async (path) => [(await (path === 'sw' ? swStream(16, length) : directStream(16, length))).rate]);
      decodeRateVsLength.push({ x: length, values: { sw: median(s.sw), direct: median(s.direct) } });
    }
  }

  // Memory against models loaded, in a third engine worker of its own (measureUserAgentSpecificMemory
  // counts every realm of the page; the difference between samples is what the loads added).
  const memoryVsModels: CurvePoint[] = [];
  if (sections.has('memory')) {
    await log('real-size: memory');
    const spare = spawnEngineWorker({ device, models, maxLoaded: 2 });
    await spare.api.ping();
    const baseline = (await sampleMemory('baseline')).totalBytes ?? 0;
    memoryVsModels.push({ x: 0, values: { 'engine worker': 0 } });
    for (const [i, id] of [EMBED, CHAT].entries()) {
      await spare.api.load(id);
      const sample = await sampleMemory(`${id} loaded`);
      memoryVsModels.push({ x: i + 1, values: { 'engine worker': ((sample.totalBytes ?? 0) - baseline) / 2 ** 20 } });
    }
    spare.terminate();
  }

  // The backend `auto` picks: the same embedder (and tiny-chat's decoding) on WASM and on this
  // browser's WebGPU adapter, each in an engine worker of its own, one after the other.
  const backends: NonNullable<RealSizeResult['backends']>[number][] = [];
  if (sections.has('backends')) {
    await log('real-size: backends');
    for (const backend of ['wasm', 'webgpu'] as const) {
      const engine = createWorkerEngine({ device: backend, models: [models[0]!], maxLoaded: 2 });
      try {
        await engine.embed({ model: EMBED, input: ['warm'] }, { signal });
        const embed16 = median(await timeEach(reps, () => engine.embed({ model: EMBED, input: [text(16)] }, { signal })));
        const embed128 = median(await timeEach(reps, () => engine.embed({ model: EMBED, input: [text(128)] }, { signal })));
        const t0 = performance.now();
        const arrivals: number[] = [];
        for await (const event of engine.chat({ model: 'tiny-chat', messages: prompt(16), maxTokens: 40, stop: [] }, { signal })) if (event.type === 'token') arrivals.push(performance.now());
        backends.push({ name: backend, embed16Ms: embed16, embed128Ms: embed128, tinyChatTokensPerSec: streamFigures(t0, arrivals).rate });
      } finally {
        engine.terminate();
      }
    }
  }

  // One engine worker through both routes. Every comparison above uses two workers (the service
  // worker's and the direct one, each with its own copy of the models and its own compiled wasm
  // code), so a difference between sw and direct may be the worker, not the route; here the
  // service worker is linked to the very worker the direct calls go to.
  const oneWorker = async (): Promise<NonNullable<RealSizeResult['oneWorker']>> => {
    await log('real-size: one worker through both routes');
    direct.terminate();
    await stopProductHost(inference);
    const one = spawnEngineWorker({ device, models, maxLoaded: 2 });
    await one.api.load(EMBED);
    await one.api.load(CHAT);
    offerEnginePort(one.connect());
    const oneLink = linkEngine(wrap<EngineHostApi>(one.connect()));
    await swEmbed(oneText);
    await directEmbed(oneText, oneLink);
    // The floor again, interleaved with these rounds, and engine-like: its bare worker spends as much
    // CPU per answer as the engine takes for this text, so the caller's threads sit idle as long on
    // both sides of the comparison (as the tiny-model bench's engine-like floor does).
    // (Timed after ten calls more: the first calls on a fresh worker run slower code.)
    await timeEach(10, () => directEmbed(oneText, oneLink));
    const floorBusyMs = Math.round(median(await timeEach(20, () => directEmbed(oneText, oneLink))) * 10) / 10;
    // `direct again`: the same direct call as a path of its own, an A/A comparison that shows how far
    // two medians of one route part by chance in these rounds.
    const oneWorkerEmbed = await rounds(byProfile({ quick: 3, short: 5, full: 10 }), ['sw', 'direct', 'floor', 'floor worker', 'direct again'] as const, async (path) => {
      const n = byProfile({ quick: 10, short: 20, full: 30 });
      if (path === 'sw') return timeEach(n, () => swEmbed(oneText));
      if (path === 'direct' || path === 'direct again') return timeEach(n, () => directEmbed(oneText, oneLink));
      await floor.refresh();
      return floor.latency(path === 'floor' ? 'sw-relay' : 'worker', n, floorBody, floorBusyMs);
    });
    // The paired estimate: the four requests of the formula back to back, one value per sample, so
    // drift and bursts of other work hit all four alike. Their order is balanced (each path follows
    // each other one equally often): with rotations, sw always came right after the floor worker
    // and direct right after sw, on an engine sw had just woken. The A/A pairing puts the direct
    // call in sw's place and keeps direct again − direct: what the order leaves between two like
    // calls (the floor is no part of it: a direct call has no route to subtract).
    await floor.refresh();
    const paired: number[] = [];
    const pairedAA: number[] = [];
    type Path = 'sw' | 'direct' | 'direct again' | 'floor' | 'floor worker';
    const timeOne = async (path: Path) => {
      if (path === 'sw') return (await timeEach(1, () => swEmbed(oneText)))[0]!;
      if (path === 'direct' || path === 'direct again') return (await timeEach(1, () => directEmbed(oneText, oneLink)))[0]!;
      return (await floor.latency(path === 'floor' ? 'sw-relay' : 'worker', 1, floorBody, floorBusyMs))[0]!;
    };
    for (let i = 0; i < byProfile({ quick: 30, short: 80, full: 200 }); i++) {
      for (const [first, out] of [['sw', paired], ['direct again', pairedAA]] as const) {
        const ms: Partial<Record<Path, number>> = {};
        for (const path of balanced([first, 'direct', 'floor', 'floor worker'] as const, i)) ms[path] = await timeOne(path);
        out.push(first === 'sw' ? ms.sw! - ms.direct! - (ms.floor! - ms['floor worker']!) : ms[first]! - ms.direct!);
      }
    }
    // Time to the first token, sw against direct and the direct call against itself (A/A): how far
    // the prefill alone moves between like calls, against the target's 2 ms.
    const firstToken = await rounds(byProfile({ quick: 3, short: 6, full: 12 }), ['sw', 'direct', 'direct again'] as const, async (path) => [
      (await (path === 'sw' ? swStream(16, 1) : directStream(16, 1, oneLink))).first,
    ]);
    // Whether what the route adds is per request or grows with the engine's work (the two-worker
    // curve above grows with input length).
    const oneWorkerVsTokens: CurvePoint[] = [];
    for (const tokens of [8, 128, 512]) {
      const s = await rounds(byProfile({ quick: 2, short: 3, full: 5 }), ['sw', 'direct'] as const, (path) =>
        timeEach(byProfile({ quick: 3, short: 5, full: 8 }), () => (path === 'sw' ? swEmbed(text(tokens)) : directEmbed(text(tokens), oneLink))),
      );
      oneWorkerVsTokens.push({ x: tokens, values: { sw: median(s.sw), direct: median(s.direct) } });
    }
    const oneWorkerStreams: Record<'sw' | 'direct', { first: number; rate: number }[]> = { sw: [], direct: [] };
    await rounds(byProfile({ quick: 2, short: 3, full: 5 }), ['sw', 'direct'] as const, async (path) => {
      oneWorkerStreams[path].push(await (path === 'sw' ? swStream(16, maxTokens) : directStream(16, maxTokens, oneLink)));
      return [];
    });
    oneLink.sever('done');
    one.terminate();
    return {
      embedOne: { tokens: 16, paths: Object.entries(oneWorkerEmbed).map(([name, ms]) => ({ name, ms: summarize(ms) })) },
      embedVsTokens: oneWorkerVsTokens,
      floorBusyMs,
      pairedOverheadMs: summarize(paired),
      samples: { embedOne: oneWorkerEmbed, paired, pairedAA, firstToken },
      stream: {
        maxTokens,
        paths: (['sw', 'direct'] as const).map((name) => ({ name, firstTokenMs: summarize(oneWorkerStreams[name].map((s) => s.first)), decodeTokensPerSec: summarize(oneWorkerStreams[name].map((s) => s.rate)) })),
      },
    };
  };

  const result: RealSizeResult = {
    device,
    profile: config.profile,
    env,
    models: { embed: { id: EMBED, bytes: real.embed.bytes }, chat: { id: CHAT, bytes: real.chat.bytes } },
    embedOne: { tokens: 16, paths: Object.entries(embedOne).map(([name, ms]) => ({ name, ms: summarize(ms) })) },
    chatOne: { promptTokens: 16, paths: Object.entries(chatOne).map(([name, ms]) => ({ name, ms: summarize(ms) })) },
    stream: {
      maxTokens,
      paths: (['sw', 'direct'] as const).map((name) => ({ name, firstTokenMs: summarize(streams[name].map((s) => s.first)), decodeTokensPerSec: summarize(streams[name].map((s) => s.rate)) })),
    },
    batching: {
      texts: texts.length,
      concurrentSw: summarize(batching.concurrentSw),
      sequentialDirect: summarize(batching.sequentialDirect),
      oneRequestSw: summarize(batching.oneRequestSw),
      oneRequestDirect: summarize(batching.oneRequestDirect),
    },
    curves: {
      embedLatencyVsTokens: { title: 'Embedding latency against input length (one text)', x: 'input tokens', y: 'ms per request (median)', logX: true, points: embedLatencyVsTokens },
      embedThroughputVsConcurrency: { title: 'Embedding throughput against concurrency (one-text requests in flight)', x: 'requests in flight', y: 'texts per second (median)', logX: true, points: embedThroughputVsConcurrency },
      ttftVsPromptTokens: { title: 'Chat time to first token against prompt length', x: 'prompt tokens', y: 'ms to first token (median)', logX: true, points: ttftVsPromptTokens },
      decodeRateVsLength: { title: 'Decode rate against generated length', x: 'generated tokens', y: 'tokens per second, first to last (median)', points: decodeRateVsLength },
      memoryVsModels: { title: 'Engine worker memory against models loaded', x: 'models loaded', y: 'MiB above an empty engine worker', points: memoryVsModels },
    },
    backends,
    ...(sections.has('one-worker') ? { oneWorker: await oneWorker() } : {}),
    checks,
  };
  await finish(result);
}

main().catch(fail);
