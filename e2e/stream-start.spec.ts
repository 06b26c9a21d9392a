/**
 * A stream begins when the engine takes its request, not when the prompt has been read: on the
 * slow synthetic engine (a test double, e2e/workers/slow-engine-worker.ts) whose prefill outlasts
 * the service worker's budget (`respondWithin`, shortened here to 3 s; 270 s in the product), a
 * streamed request through the service worker gets its status and the flavour's first event at
 * once and completes, with the exact prompt count at its end. A non-streamed one still gets the
 * budget's 503: its answer is its body. See docs/decisions/service-worker-limits.md.
 */
import { expect, startRuntime, test } from './fixtures.ts';

const BUDGET_MS = 3_000;
const PREFILL_MS = 6_000;

type Outcome = {
  status: number;
  /** From the fetch call to the response's headers, and to its first SSE event. */
  headersMs: number;
  firstEventMs: number;
  totalMs: number;
  events: { event: string | null; data: string }[];
};

test('a stream whose prefill outlasts the service worker budget begins at once and completes, in both flavours', async ({ page }) => {
  test.setTimeout(120_000);
  await startRuntime(page, { engine: 'slow', tokenMs: 200, prefillMs: PREFILL_MS, inPage: false, serviceWorkerUrl: `/inpage-llm-sw.js?respondWithin=${BUDGET_MS}` });
  const outcomes = await page.evaluate(async () => {
    const ask = async (path: string, body: object, headers: Record<string, string> = {}): Promise<Outcome> => {
      const started = performance.now();
      const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      const headersMs = performance.now() - started;
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      let firstEventMs = -1;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += value;
        if (firstEventMs < 0 && text.includes('\n\n')) firstEventMs = performance.now() - started;
      }
      const events = text
        .split('\n\n')
        .filter(Boolean)
        .map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1] ?? null, data: /^data: (.*)$/m.exec(block)?.[1] ?? '' }));
      return { status: response.status, headersMs, firstEventMs, totalMs: performance.now() - started, events };
    };
    const messages = [{ role: 'user', content: 'Take your time' }];
    return {
      openai: await ask('/v1/chat/completions', { model: 'slow-a', messages, max_tokens: 3, stream: true, stream_options: { include_usage: true } }),
      anthropic: await ask('/v1/messages', { model: 'slow-b', messages, max_tokens: 3, stream: true }, { 'anthropic-version': '2023-06-01' }),
      whole: await (async () => {
        const response = await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'slow-a', messages, max_tokens: 3 }) });
        return { status: response.status, body: await response.json() };
      })(),
    };
  });

  for (const outcome of [outcomes.openai, outcomes.anthropic]) {
    expect(outcome.status).toBe(200);
    // Begun within a second of the engine taking the request (at once: no queue, nothing to load).
    expect(outcome.headersMs).toBeLessThan(1_500);
    expect(outcome.firstEventMs).toBeLessThan(1_500);
    // ...and it ran past both the prefill and the budget that would have cut it.
    expect(outcome.totalMs).toBeGreaterThan(PREFILL_MS);
  }
  const chunks = outcomes.openai.events.filter((e) => e.data.startsWith('{')).map((e) => JSON.parse(e.data));
  expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
  expect(outcomes.openai.events.at(-1)!.data).toBe('[DONE]');
  expect(chunks.at(-1).usage).toEqual({ prompt_tokens: 3, completion_tokens: 3, total_tokens: 6, prompt_tokens_details: { cached_tokens: 0 } });

  const types = outcomes.anthropic.events.map((e) => e.event);
  expect(types[0]).toBe('message_start');
  expect(types.at(-1)).toBe('message_stop');
  // message_start went out before the prompt was read (0); message_delta carries the count.
  expect(JSON.parse(outcomes.anthropic.events[0]!.data).message.usage.input_tokens).toBe(0);
  const delta = outcomes.anthropic.events.find((e) => e.event === 'message_delta')!;
  expect(JSON.parse(delta.data).usage).toMatchObject({ input_tokens: 3, output_tokens: 3 });

  // A whole answer begins only when it is complete: the budget still cuts it, with a clear 503.
  expect(outcomes.whole.status).toBe(503);
  expect(outcomes.whole.body.error.code).toBe('model_unavailable');
});
