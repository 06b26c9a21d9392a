/**
 * TEST DOUBLE. An upstream server on 127.0.0.1 that speaks just enough of the OpenAI Chat
 * Completions API (JSON and SSE) for the gateway's forwarding to be tested against behaviour a real
 * model cannot be made to show on demand: a slow stream, late headers, a chosen error status and
 * body. It records every request (its headers, its body, when its connection closed) and the time
 * each stream chunk was written, so a test can compare them with what its client saw.
 *
 * Caps and stops as llama.cpp's server (February 2025) takes them: each chunk is one token,
 * `max_tokens` cuts the answer (`length`) and `max_completion_tokens` is ignored; a `stop` string
 * ends it before the string, which is never sent, and the finish is a plain `stop` that does not
 * say which string matched.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the server answers to one POST. */
export interface UpstreamReply {
  /** Default 200. Any other status sends `body` as it is (the error a real server would send). */
  readonly status?: number;
  /** The reason phrase; default Node's for the status. */
  readonly statusText?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** The whole body for a non-200 status (a string is sent as is, anything else as JSON). */
  readonly body?: unknown;
  /** The answer's text pieces: one SSE chunk each when the request streams, joined otherwise. Default ['Hello', ' there']. */
  readonly chunks?: readonly string[];
  /** Delay before each content chunk after the first. */
  readonly chunkDelayMs?: number;
  /** Delay before the status line and headers. */
  readonly headersDelayMs?: number;
  /** Streams only: after this many content chunks, the connection is destroyed (between two events). */
  readonly cutAfter?: number;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown> | undefined;
  /** performance.now() at each content chunk's write. */
  readonly chunkSentAt: number[];
  /** Resolves when the connection or response closes; `early` when that was before the answer was fully written. */
  readonly closed: Promise<{ early: boolean; at: number }>;
}

export interface ScriptedUpstream {
  /** The base URL, `/v1` included, as a remote model's `upstream.baseURL` takes it. */
  readonly url: string;
  /** Every request, the health probes (`GET /v1/models`) included. */
  readonly requests: RecordedRequest[];
  /** How the next POSTs are answered; the tests set it before each call. */
  reply: (request: RecordedRequest) => UpstreamReply;
  /** The POSTs only: the calls the gateway forwarded. */
  posts(): RecordedRequest[];
  /** What `GET /v1/models` lists (`data`). */
  models: readonly Record<string, unknown>[];
  close(): Promise<void>;
}

export interface ScriptedUpstreamOptions {
  /** Answer cross-origin callers (a page's service worker): preflights, and every answer readable from any origin. */
  readonly cors?: boolean;
}

export async function startScriptedUpstream({ cors = false }: ScriptedUpstreamOptions = {}): Promise<ScriptedUpstream> {
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const upstream: ScriptedUpstream = {
    url: '',
    requests,
    reply: () => ({}),
    posts: () => requests.filter((r) => r.method === 'POST'),
    // As vLLM lists a model: its context as `max_model_len`.
    models: [{ id: 'scripted-model', object: 'model', created: 1_700_000_000, owned_by: 'scripted-org', max_model_len: 8192 }],
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const server: Server = createServer((req, res) => void handle(req, res));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (cors) {
      res.setHeader('access-control-allow-origin', '*');
      if (req.method === 'OPTIONS') {
        return void res
          .writeHead(204, { 'access-control-allow-methods': 'GET, POST', 'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '*', 'access-control-max-age': '600' })
          .end();
      }
    }
    const raw = await readBody(req);
    let finished = false;
    const closed = new Promise<{ early: boolean; at: number }>((resolve) => res.once('close', () => resolve({ early: !finished, at: performance.now() })));
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
    const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, chunkSentAt: [], closed };
    requests.push(recorded);
    let gone = false;
    void closed.then(() => (gone = true));

    if (req.method === 'GET' && req.url === '/v1/models') {
      finished = true;
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: upstream.models }));
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      finished = true;
      return void res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `No route ${req.method} ${req.url}`, type: 'invalid_request_error' } }));
    }

    const reply = upstream.reply(recorded);
    if (reply.headersDelayMs) await later(reply.headersDelayMs);
    if (gone) return;
    const status = reply.status ?? 200;
    const statusText = reply.statusText ?? STATUS_CODES[status] ?? 'Unknown';
    if (status !== 200) {
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
      const type = typeof reply.body === 'string' ? (reply.body.startsWith('<') ? 'text/html' : 'text/plain') : 'application/json';
      finished = true;
      return void res.writeHead(status, statusText, { 'content-type': type, ...reply.headers }).end(text);
    }

    const { chunks, finish, tokens } = answerOf(reply.chunks ?? ['Hello', ' there'], body);
    const model = String(body?.model);
    const id = 'chatcmpl-scripted';
    const created = 1_763_000_000;
    const usage = { prompt_tokens: 5, completion_tokens: tokens, total_tokens: 5 + tokens };
    if (body?.stream !== true) {
      const completion = {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: chunks.join('') }, finish_reason: finish, logprobs: null }],
        usage,
      };
      finished = true;
      return void res.writeHead(200, { 'content-type': 'application/json', ...reply.headers }).end(JSON.stringify(completion));
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
    const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      send({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
    chunk({ role: 'assistant', content: '' });
    for (const [i, text] of chunks.entries()) {
      if (i > 0 && reply.chunkDelayMs) await later(reply.chunkDelayMs);
      if (gone) return;
      chunk({ content: text });
      recorded.chunkSentAt.push(performance.now());
      // After what was written has left: a cut between two events, not inside one.
      if (reply.cutAfter === i + 1) return void res.write('', () => setTimeout(() => res.socket?.destroy(), 50));
    }
    chunk({}, finish);
    const options = body.stream_options as { include_usage?: boolean } | undefined;
    if (options?.include_usage) send({ id, object: 'chat.completion.chunk', created, model, choices: [], usage });
    res.write('data: [DONE]\n\n');
    finished = true;
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (upstream as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return upstream;
}

/**
 * The answer a request gets of `planned` (one token a chunk): cut at `max_tokens`, or before the
 * first `stop` string, as llama.cpp's server cuts it. `tokens`: those generated (a stop string's too).
 */
function answerOf(planned: readonly string[], body: Record<string, unknown> | undefined): { chunks: string[]; finish: string; tokens: number } {
  const cap = typeof body?.max_tokens === 'number' ? body.max_tokens : Infinity;
  const stops = (typeof body?.stop === 'string' ? [body.stop] : Array.isArray(body?.stop) ? body.stop : []).filter((s): s is string => typeof s === 'string' && s !== '');
  const chunks: string[] = [];
  let text = '';
  for (const [i, piece] of planned.entries()) {
    if (i >= cap) return { chunks, finish: 'length', tokens: i };
    const at = Math.min(...stops.map((stop) => (text + piece).indexOf(stop)).filter((index) => index !== -1));
    if (Number.isFinite(at)) {
      const before = (text + piece).slice(text.length, at);
      if (before) chunks.push(before);
      return { chunks, finish: 'stop', tokens: i + 1 };
    }
    chunks.push(piece);
    text += piece;
  }
  return { chunks, finish: 'stop', tokens: planned.length };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (part: string) => (text += part));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}
