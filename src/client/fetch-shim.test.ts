import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedEngine } from '../../test/support/scripted-engine.ts';
import { installFetchShim, type FetchShim } from './fetch-shim.ts';

const CHAT = (stream: boolean) => JSON.stringify({ model: 'scripted-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 12, stream });
const post = (body: string, signal?: AbortSignal) => fetch('https://app.test/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal });

let shim: FetchShim | undefined;
afterEach(() => shim?.uninstall());

describe('installFetchShim: abort as fetch does', () => {
  it('rejects with the reason of its signal when aborted before the answer begins', async () => {
    const engine = new ScriptedEngine({ answerTokens: 12, tokenDelayMs: 20 });
    shim = installFetchShim({ engine });
    const controller = new AbortController();
    const pending = post(CHAT(false), controller.signal);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    const reason = new Error('the user left');
    const custom = new AbortController();
    custom.abort(reason);
    await expect(post(CHAT(false), custom.signal)).rejects.toBe(reason);
  });

  it('errors the body with the reason once aborted mid-stream, and stops the engine', async () => {
    const engine = new ScriptedEngine({ answerTokens: 12, tokenDelayMs: 20 });
    shim = installFetchShim({ engine });
    const controller = new AbortController();
    const response = await post(CHAT(true), controller.signal);
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
    await expect.poll(() => engine.chatCalls.at(-1)?.aborted).toBe(true);
    expect(engine.chatCalls.at(-1)!.tokens).toBeLessThan(12);
  });

  it('leaves an answer read to its end untouched', async () => {
    shim = installFetchShim({ engine: new ScriptedEngine({ answerTokens: 5 }) });
    const text = await (await post(CHAT(true))).text();
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });
});
