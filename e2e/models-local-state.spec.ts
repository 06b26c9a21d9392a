/**
 * `GET /models` reports each model's state on this device from any tab: a tab that does not host
 * the engine asks the service worker, which asks the engine worker in the hosting tab.
 */
import { expect, test } from '@playwright/test';
import { startRuntime } from './fixtures.ts';

interface Listed {
  id: string;
  local?: { state: string; downloaded: boolean; size_bytes: number; runnable: boolean; backend?: string; requires: string[] };
}

test('a tab that does not host the engine gets the local state of each model, loaded by the host', async ({ context }) => {
  const host = await context.newPage();
  await startRuntime(host);
  const guest = await context.newPage();
  await startRuntime(guest);
  expect(await host.evaluate(() => window.inference.isHost)).toBe(true);
  expect(await guest.evaluate(() => window.inference.isHost)).toBe(false);

  await host.evaluate(() => window.inference.load('tiny-chat'));
  // The guest has no engine of its own: its service worker answers, through the host's engine worker.
  expect(await guest.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  const listed = await guest.evaluate(async () => (await (await fetch('/v1/models')).json()) as { data: Listed[] });
  const chat = listed.data.find((m) => m.id === 'tiny-chat')!;
  expect(chat.local).toMatchObject({ state: 'loaded', downloaded: true, runnable: true, backend: 'wasm', requires: [] });
  expect(chat.local!.size_bytes).toBeGreaterThan(600_000);
  expect(listed.data.find((m) => m.id === 'Llama-3.2-1B-Instruct')!.local).toMatchObject({ state: 'available', downloaded: false, size_bytes: 0, runnable: true, backend: 'webgpu' });

  // The Anthropic shape carries the same object.
  const anthropic = await guest.evaluate(async () => (await (await fetch('/v1/models/tiny-chat', { headers: { 'anthropic-version': '2023-06-01' } })).json()) as Listed & { type: string });
  expect(anthropic).toMatchObject({ type: 'model', id: 'tiny-chat', local: { state: 'loaded', downloaded: true } });
});
