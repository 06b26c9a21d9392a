/**
 * The playground's Responses flavour keeping its conversation on the server: with the box ticked
 * the first turn starts a conversation (`POST /v1/conversations`), each turn then sends only its
 * own input with the conversation's id, and the server's conversation holds every turn in order.
 * Switching flavours midway starts a new one that holds the turns so far.
 */
import { expect, test, type Page } from '@playwright/test';

async function openPlayground(page: Page): Promise<void> {
  await page.goto('/?device=wasm');
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
}

const promptBox = (page: Page) => page.getByRole('textbox', { name: 'Message', exact: true });

/** The body of the request the inspector shows (the last one sent). */
async function sentBody(page: Page): Promise<Record<string, unknown>> {
  return JSON.parse((await page.getByTestId('inspector-request').textContent())!.split('\n\n').slice(1).join('\n\n'));
}

async function say(page: Page, text: string, replies: number): Promise<void> {
  await promptBox(page).fill(text);
  await promptBox(page).press('Enter');
  await expect(page.locator('.bubble-assistant')).toHaveCount(replies);
  await expect(page.locator('.bubble-assistant').nth(replies - 1)).toHaveAttribute('data-state', 'done');
}

test('Responses flavour: a conversation kept on the server, each turn sending only what is new', async ({ page }) => {
  await openPlayground(page);
  await page.getByRole('radio', { name: /OpenAI responses/ }).check();
  await page.getByLabel('Max tokens').fill('16');
  await page.getByLabel(/keep the conversation on the server/).check();

  await say(page, 'Tell me about the river.', 1);
  const first = await sentBody(page);
  expect(first).toMatchObject({ model: 'tiny-chat', input: [{ role: 'user', content: 'Tell me about the river.' }], conversation: expect.stringMatching(/^conv_/) });
  expect(first).not.toHaveProperty('store');
  const id = first.conversation as string;

  await say(page, 'And the sea?', 2);
  expect(await sentBody(page)).toMatchObject({ input: [{ role: 'user', content: 'And the sea?' }], conversation: id });

  const items = await page.evaluate(async (conversation) => (await (await fetch(`/v1/conversations/${conversation}/items?order=asc`)).json()) as { data: { role: string; content: { text: string }[] }[] }, id);
  const replies = await page.locator('.bubble-assistant .content').allTextContents();
  expect(items.data.map((item) => [item.role, item.content.map((part) => part.text).join('')])).toEqual([
    ['user', 'Tell me about the river.'],
    ['assistant', replies[0]],
    ['user', 'And the sea?'],
    ['assistant', replies[1]],
  ]);

  // A turn in another flavour: the next kept turn starts a new conversation holding all so far.
  await page.getByRole('radio', { name: /OpenAI chat/ }).check();
  await say(page, 'And the hills?', 3);
  await page.getByRole('radio', { name: /OpenAI responses/ }).check();
  await say(page, 'And the sky?', 4);
  const fourth = await sentBody(page);
  expect(fourth).toMatchObject({ input: [{ role: 'user', content: 'And the sky?' }], conversation: expect.stringMatching(/^conv_/) });
  expect(fourth.conversation).not.toBe(id);
  const again = await page.evaluate(async (conversation) => (await (await fetch(`/v1/conversations/${conversation}/items?order=asc`)).json()) as { data: unknown[] }, fourth.conversation as string);
  expect(again.data).toHaveLength(8);

  // Cleared: the next turn starts afresh.
  await page.getByRole('button', { name: 'Clear conversation' }).click();
  await say(page, 'Hello again.', 1);
  const fresh = await sentBody(page);
  expect(fresh.conversation).not.toBe(fourth.conversation);
  expect(fresh.input).toEqual([{ role: 'user', content: 'Hello again.' }]);
});
