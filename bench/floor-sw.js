/*
 * The browser's own floor: a bare service worker with no product code. Registered by the floor
 * page (bench/pages/floor.ts) with scope /bench/floor/, so it controls that page only and never
 * meets the product's /sw.js (scope /). It answers:
 *   POST /bench/floor/const          a constant JSON body (the request body is not read)
 *   POST /bench/floor/relay          reads the body, relays it to a worker over a MessagePort,
 *                                    answers with the worker's JSON reply (?busy=MS: the worker
 *                                    first spends MS of CPU, like an engine)
 *   GET  /bench/floor/stream?n=N     N SSE chunks relayed from the worker, one postMessage each
 *                                    (&pace=MS: the worker spends MS of CPU before each;
 *                                    &yield=1: and yields to its event loop after each)
 *   GET  /bench/floor/stream-const?n=N  N SSE chunks produced here, as fast as the stream pulls
 * The worker port arrives in a {type:'PORT'} message (ports[0]); the ack goes to ports[1]. The
 * page sends a fresh port before each measurement block, since an idle worker may be restarted.
 */

// The same strings as bench/pages/lib/floor-answer.ts (this script is served as is, not bundled).
const CONSTANT = JSON.stringify({
  id: 'chatcmpl-floor',
  object: 'chat.completion',
  created: 0,
  model: 'floor',
  choices: [{ index: 0, message: { role: 'assistant', content: 'x', refusal: null }, logprobs: null, finish_reason: 'length' }],
  usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 },
});
const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };
const encoder = new TextEncoder();

let port = null;
let nextId = 0;
const pending = new Map();

self.addEventListener('install', (event) => event.waitUntil(self.skipWaiting()));
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('message', (event) => {
  if (event.data?.type !== 'PORT') return;
  port?.close();
  port = event.ports[0];
  port.onmessage = (message) => pending.get(message.data.id)?.(message.data);
  event.ports[1]?.postMessage('ready');
});

function relay(request, busyMs) {
  return request.text().then(
    (body) =>
      new Promise((resolve) => {
        const id = nextId++;
        pending.set(id, (reply) => {
          pending.delete(id);
          resolve(new Response(reply.body, { headers: JSON_HEADERS }));
        });
        port.postMessage({ id, body, busyMs });
      }),
  );
}

function relayStream(n, paceMs, yieldEach) {
  const id = nextId++;
  let controller;
  const body = new ReadableStream({ start: (c) => void (controller = c) });
  pending.set(id, (message) => {
    if (message.done) {
      pending.delete(id);
      controller.enqueue(encoder.encode('data: [DONE]\n\n'));
      controller.close();
    } else controller.enqueue(encoder.encode(`data: ${message.chunk}\n\n`));
  });
  port.postMessage({ id, stream: n, paceMs, yieldEach });
  return new Response(body, { headers: SSE_HEADERS });
}

function constStream(n) {
  let i = 0;
  const chunk = encoder.encode('data: {"choices":[{"index":0,"delta":{"content":"x"}}]}\n\n');
  const body = new ReadableStream(
    {
      pull(controller) {
        if (i++ < n) controller.enqueue(chunk);
        else {
          controller.enqueue(encoder.encode('data: [DONE]\n\n'));
          controller.close();
        }
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { headers: SSE_HEADERS });
}

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (!url.pathname.startsWith('/bench/floor/')) return;
  const n = Number(url.searchParams.get('n') ?? '0');
  switch (url.pathname) {
    case '/bench/floor/const':
      event.respondWith(new Response(CONSTANT, { headers: JSON_HEADERS }));
      break;
    case '/bench/floor/relay':
      event.respondWith(relay(event.request, Number(url.searchParams.get('busy') ?? '0')));
      break;
    case '/bench/floor/stream':
      event.respondWith(relayStream(n, Number(url.searchParams.get('pace') ?? '0'), url.searchParams.get('yield') === '1'));
      break;
    case '/bench/floor/stream-const':
      event.respondWith(constStream(n));
      break;
  }
});
