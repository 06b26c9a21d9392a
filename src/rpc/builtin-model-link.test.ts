import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../core/errors.ts';
import type { BuiltinEvent, BuiltinModelBackend } from '../contracts/builtin-model.ts';
import { connectBuiltinModel, serveBuiltinModel } from './builtin-model-link.ts';

const ports: MessagePort[] = [];
afterEach(() => {
  for (const port of ports.splice(0)) port.close();
});

/** The worker's view of `backend`, served by the "page" over a real MessageChannel. */
function link(backend: BuiltinModelBackend) {
  const { port1, port2 } = new MessageChannel();
  ports.push(port1, port2);
  const served = serveBuiltinModel(port1, backend);
  return { remote: connectBuiltinModel(port2), served };
}

/** A backend that streams `count` pieces, `ms` apart, and records how its signal ended. */
function slowBackend(count: number, ms: number) {
  const seen = { aborted: false };
  const backend: BuiltinModelBackend = {
    availability: async () => ({ state: 'available' }),
    async prepare(onProgress) {
      for (const loaded of [0.25, 1]) onProgress(loaded);
    },
    async *prompt(_prompt, signal): AsyncGenerator<BuiltinEvent> {
      signal.addEventListener('abort', () => (seen.aborted = true));
      yield { type: 'usage', promptTokens: 3, estimated: false };
      for (let i = 0; i < count && !signal.aborted; i++) {
        await new Promise((r) => setTimeout(r, ms));
        yield { type: 'text', text: `${i} ` };
      }
    },
  };
  return { backend, seen };
}

const PROMPT = { initialPrompts: [], input: [{ role: 'user' as const, content: 'hi' }] };

describe('the built-in model link (host page ⇄ engine worker)', () => {
  it('carries availability, download progress and a streamed answer', async () => {
    const { remote } = link(slowBackend(3, 0).backend);
    expect(await remote.availability()).toEqual({ state: 'available' });
    const loaded: number[] = [];
    await remote.prepare((l) => loaded.push(l));
    expect(loaded).toEqual([0.25, 1]);
    const events: BuiltinEvent[] = [];
    for await (const event of remote.prompt(PROMPT, new AbortController().signal)) events.push(event);
    expect(events).toEqual([{ type: 'usage', promptTokens: 3, estimated: false }, { type: 'text', text: '0 ' }, { type: 'text', text: '1 ' }, { type: 'text', text: '2 ' }]);
  });

  it('gives failures back as the gateway errors they were', async () => {
    const { remote } = link({
      availability: () => Promise.reject(new GatewayError('model_unavailable', 'no model here')),
      prepare: () => Promise.reject(new Error('plain')),
      async *prompt() {
        throw new GatewayError('context_length_exceeded', 'too long', { param: 'messages' });
      },
    });
    await expect(remote.availability()).rejects.toMatchObject({ code: 'model_unavailable', message: 'no model here' });
    await expect(remote.prepare(() => {})).rejects.toMatchObject({ code: 'internal', message: 'plain' });
    await expect((async () => {
      for await (const _ of remote.prompt(PROMPT, new AbortController().signal));
    })()).rejects.toMatchObject({ code: 'context_length_exceeded', param: 'messages' });
  });

  it("stops the page's answer when the worker's caller aborts, and when it stops reading", async () => {
    const aborting = slowBackend(50, 10);
    const controller = new AbortController();
    const first = link(aborting.backend).remote;
    const read = (async () => {
      for await (const event of first.prompt(PROMPT, controller.signal)) if (event.type === 'text') controller.abort();
    })();
    await expect(read).rejects.toMatchObject({ code: 'aborted' });
    await expect.poll(() => aborting.seen.aborted).toBe(true);

    const leaving = slowBackend(50, 10);
    for await (const event of link(leaving.backend).remote.prompt(PROMPT, new AbortController().signal)) if (event.type === 'text') break;
    await expect.poll(() => leaving.seen.aborted).toBe(true);
  });

  it("ends the page's answers in progress when its worker is gone", async () => {
    const slow = slowBackend(50, 10);
    const { remote, served } = link(slow.backend);
    const iterator = remote.prompt(PROMPT, new AbortController().signal)[Symbol.asyncIterator]();
    await iterator.next();
    served.close();
    await expect.poll(() => slow.seen.aborted).toBe(true);
  });
});
