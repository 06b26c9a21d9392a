import { describe, expect, it } from 'vitest';
import { encodeSSEComment, toSSEStream, type SSEMessage } from './sse.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads a byte stream whole, as text. */
async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

describe('toSSEStream keep-alive', () => {
  it('sends the keep-alive while a message is long in coming, and the message after it', async () => {
    async function* source(): AsyncGenerator<SSEMessage> {
      yield { data: '1' };
      await sleep(130);
      yield { data: '2' };
    }
    const wire = await text(toSSEStream(source(), () => {}, { message: encodeSSEComment('keep-alive'), everyMs: 50 }));
    expect(wire.startsWith('data: 1\n\n: keep-alive\n\n: keep-alive\n\n')).toBe(true);
    expect(wire.endsWith('data: 2\n\n')).toBe(true);
  });

  it('sends none when messages come in time, or when not asked', async () => {
    async function* source(): AsyncGenerator<SSEMessage> {
      yield { data: '1' };
      await sleep(20);
      yield { event: 'x', data: '2' };
    }
    expect(await text(toSSEStream(source(), () => {}, { message: encodeSSEComment('keep-alive'), everyMs: 200 }))).toBe('data: 1\n\nevent: x\ndata: 2\n\n');
    expect(await text(toSSEStream(source(), () => {}))).toBe('data: 1\n\nevent: x\ndata: 2\n\n');
  });

  it('passes a failure that comes after a keep-alive on to the reader', async () => {
    async function* source(): AsyncGenerator<SSEMessage> {
      await sleep(80);
      throw new Error('engine gone');
    }
    await expect(text(toSSEStream(source(), () => {}, { message: encodeSSEComment('keep-alive'), everyMs: 30 }))).rejects.toThrow('engine gone');
  });
});
