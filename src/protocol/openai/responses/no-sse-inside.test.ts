/**
 * A streamed `/responses` answer is rendered from the neutral generation's events, as a chat
 * completion's is: its SSE text is written once, for its caller, and nothing inside the server
 * encodes a chat completion stream to read it back. Counted at core/sse.ts, the one place SSE is
 * encoded (`toSSEStream`) and decoded (`readSSEEvents`, `createSSEParser`): a Responses stream
 * built on the chat route's own output would encode twice and decode once.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createGateway } from '../../../gateway/index.ts';
import { ScriptedEngine } from '../../../../test/support/scripted-engine.ts';

const calls = vi.hoisted(() => ({ toSSEStream: 0, readSSEEvents: 0, createSSEParser: 0 }));

vi.mock('../../../core/sse.ts', async (original) => {
  const actual = await original<typeof import('../../../core/sse.ts')>();
  return {
    ...actual,
    toSSEStream: (...args: Parameters<typeof actual.toSSEStream>) => (calls.toSSEStream++, actual.toSSEStream(...args)),
    readSSEEvents: (...args: Parameters<typeof actual.readSSEEvents>) => (calls.readSSEEvents++, actual.readSSEEvents(...args)),
    createSSEParser: () => (calls.createSSEParser++, actual.createSSEParser()),
  };
});

const BASE = 'http://app.local/v1';

/** The events of an SSE body, split as any reader would (not with the product's decoder, which is counted). */
async function eventsOf(response: Response): Promise<{ event: string; data: Record<string, unknown> }[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('event: '))
    .map((block) => {
      const [eventLine, dataLine] = block.split('\n');
      return { event: eventLine!.slice('event: '.length), data: JSON.parse(dataLine!.slice('data: '.length)) as Record<string, unknown> };
    });
}

describe('a streamed /responses answer', () => {
  beforeEach(() => Object.assign(calls, { toSSEStream: 0, readSSEEvents: 0, createSSEParser: 0 }));

  it('is encoded as SSE once, for its caller, and never decoded inside the server', async () => {
    const gateway = createGateway({ engine: new ScriptedEngine({ answerTokens: 6 }), baseUrl: BASE });
    const response = await gateway.fetch(
      new Request(`${BASE}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'scripted-chat', input: 'Say hi.', stream: true }) }),
    );
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await eventsOf(response);
    expect(events.filter((e) => e.event === 'response.output_text.delta')).toHaveLength(6);
    expect(events.at(-1)!.event).toBe('response.completed');
    expect(calls).toEqual({ toSSEStream: 1, readSSEEvents: 0, createSSEParser: 0 });
  });

  it('is counted by this test: a chat completion stream read back would show', async () => {
    // The counters see what a route does: reading a stream with the product's decoder counts.
    const { readSSEEvents, toSSEStream } = await import('../../../core/sse.ts');
    const encoded = toSSEStream((async function* () { yield { data: '{}' }; })(), () => {});
    for await (const _ of readSSEEvents(encoded)) void _;
    expect(calls).toEqual({ toSSEStream: 1, readSSEEvents: 1, createSSEParser: 0 });
  });
});
