/**
 * The browser's built-in model on the real Prompt API, where the browser has it: the Chromium
 * these tests usually run on has `LanguageModel` but no model (`availability()` says
 * "unavailable"), so this runs only on request, with a Chrome (148 or later, on a supported
 * device) or an Edge whose model is downloaded or downloadable, e.g.
 *   PROMPT_API_REAL=1 CHROMIUM_PATH="/opt/google/chrome/chrome" npx playwright test e2e/builtin-model.real.spec.ts
 * (a downloadable model is downloaded first: give it time, and a profile where it stays). The
 * model's words cannot be known: only what the constraints force is asserted.
 */
import { expect, startRuntime, test } from './fixtures.ts';

const MODEL = 'browser-builtin';
const HOW = 'run with PROMPT_API_REAL=1 CHROMIUM_PATH=<a Chrome 148+ or Edge with its built-in model> npx playwright test e2e/builtin-model.real.spec.ts';

test.describe('the built-in model on the real Prompt API', () => {
  test.skip(!process.env.PROMPT_API_REAL, `needs a browser with a built-in model, which the one here lacks: ${HOW}`);
  test.setTimeout(30 * 60_000);

  test('chat, a stream, a JSON schema and a tool call, with the SDKs', async ({ page }) => {
    await startRuntime(page);
    const availability = await page.evaluate(async () => {
      const lm = (window as { LanguageModel?: { availability(): Promise<string> } }).LanguageModel;
      return lm ? lm.availability() : 'absent';
    });
    test.skip(availability === 'absent' || availability === 'unavailable', `this browser's Prompt API says "${availability}": ${HOW}`);
    // A download needs a user gesture: the click loads the model.
    await page.evaluate(() => {
      const button = document.createElement('button');
      button.textContent = 'load';
      button.onclick = () => void window.inference.load('browser-builtin');
      document.body.append(button);
    });
    await page.click('button');
    const out = await page.evaluate(async (model) => {
      const h = window.harness;
      const openai = new h.OpenAI({ baseURL: `${location.origin}/v1`, apiKey: 'k', dangerouslyAllowBrowser: true, fetch: h.networkFetch, timeout: 20 * 60_000 });
      const chat = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Say hello in three words.' }], max_tokens: 40 });
      let streamed = '';
      for await (const chunk of await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Count to five.' }], max_tokens: 40, stream: true })) streamed += chunk.choices[0]?.delta.content ?? '';
      const schema = { type: 'object', properties: { city: { type: 'string' }, country: { type: 'string' } }, required: ['city', 'country'], additionalProperties: false };
      const json = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Name the capital of France.' }], response_format: { type: 'json_schema', json_schema: { name: 'capital', schema, strict: true } } });
      const tools = await openai.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }],
        tool_choice: 'required',
      });
      const call = tools.choices[0]!.message.tool_calls?.[0];
      return { chat: chat.choices[0]!.message.content, usage: chat.usage, streamed, json: json.choices[0]!.message.content, call: call?.type === 'function' ? call.function : null };
    }, MODEL);
    expect(out.chat!.length).toBeGreaterThan(0);
    expect(out.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(out.streamed.length).toBeGreaterThan(0);
    expect(Object.keys(JSON.parse(out.json!))).toEqual(['city', 'country']);
    expect(out.call!.name).toBe('get_weather');
    expect(JSON.parse(out.call!.arguments)).toHaveProperty('city');
  });
});
