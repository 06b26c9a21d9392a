// web-llm keeps its last conversation's KV cache and reuses it for a request that continues it
// (docs/decisions/webllm-keeps-its-conversation.md). Here the adapter runs behind the model host
// and the gateway's generation, as the API runs it, on web-llm's MLCEngine played by a TEST DOUBLE
// (test/support/webllm-double.ts: the real one needs WebGPU and a model library) that reuses by
// web-llm's own rule and keeps its own account of what it reused (`rounds`). Each turn's usage
// must say exactly what the double read again.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage, ChatRequest, ToolSpec } from '../../core/engine.ts';
import { startGeneration, type GenerationEvent } from '../../core/generation.ts';
import { drainGeneration } from '../../../test/support/generations.ts';
import { TestDoubleMLCEngine, type WebLLMScript } from '../../../test/support/webllm-double.ts';
import { loadXGrammar } from '../grammar/load-xgrammar.node.ts';
import type { XGrammar } from '../grammar/xgrammar.ts';
import { createModelHost } from '../hosting/model-host.ts';
import type { WebLLMModelSpec } from '../catalog/webllm-model-spec.ts';
import { createWebLLMAdapter } from './webllm-adapter.ts';

const QWEN: WebLLMModelSpec = {
  info: { id: 'qwen', kind: 'chat', engine: 'webllm', contextWindow: 4096, maxOutputTokens: 1024 },
  variants: { f32: 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC' },
};
const THINKER: WebLLMModelSpec = { info: { ...QWEN.info, id: 'thinker', reasoning: { open: '<think>', close: '</think>' } }, variants: { f32: 'Qwen3-0.6B-q4f32_1-MLC' } };

let xgrammar: XGrammar;
beforeAll(async () => {
  xgrammar = await loadXGrammar();
});

function setup(spec: WebLLMModelSpec = QWEN, options: { internals?: boolean } = {}) {
  const engines: TestDoubleMLCEngine[] = [];
  const adapter = createWebLLMAdapter({
    models: [spec],
    gpu: async () => ({ hasShaderF16: false }),
    createEngine: (engineOptions) => {
      const engine = new TestDoubleMLCEngine(engineOptions, { grammar: xgrammar, prefillStats: options.internals !== false });
      engines.push(engine);
      return engine;
    },
    grammar: loadXGrammar,
    prebuiltModels: false,
  });
  const host = createModelHost({ adapters: [adapter] });
  /** One turn: the script the double answers with, the request; the answer's text, calls and finish. */
  async function turn(script: WebLLMScript, chat: Partial<ChatRequest> & { messages: readonly ChatMessage[] }) {
    await adapter.load(spec.info.id);
    engines[0]!.scripts.push(script);
    const events = await drainGeneration(await startGeneration(host, { model: spec.info.id, maxTokens: 64, stop: [], ...chat }, new AbortController().signal, { reasoning: spec.info.reasoning }));
    const finish = events.at(-1) as Extract<GenerationEvent, { type: 'finish' }>;
    const text = events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
    const args = events.flatMap((e) => (e.type === 'tool_arguments' ? [e.text] : [])).join('');
    const calls = events.flatMap((e) => (e.type === 'tool_call' ? [e.name] : []));
    return { text, calls, args, finish };
  }
  const engine = () => engines[0]!;
  return { turn, engine };
}

const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });
/** The script's steps, then the stop token. */
const says = (...steps: string[]): WebLLMScript => ({ steps: [...steps, ''], finish: 'stop' });

/** What the double read again and prefilled for its last generation, as the usage must say it. */
function expectUsageOf(engine: TestDoubleMLCEngine, usage: { promptTokens: number; cachedTokens: number }, reused: boolean) {
  const round = engine.rounds.at(-1)!;
  expect(round.reused).toBe(reused);
  expect(usage.cachedTokens).toBe(round.kept);
  expect(usage.promptTokens).toBe(round.kept + round.prefilled);
}

describe('a plain conversation', () => {
  it('each turn after the first reads only its new message; usage says how many tokens were kept', async () => {
    const { turn, engine } = setup();
    const history: ChatMessage[] = [{ role: 'system', content: 'Be brief.' }, user('Hello')];
    const first = await turn(says('Hi', ' there'), { messages: history });
    expect(first.finish.usage.cachedTokens).toBe(0);
    expectUsageOf(engine(), first.finish.usage, false);
    history.push(assistant(first.text), user('How are you?'));
    const second = await turn(says('Fine', '.'), { messages: history });
    expectUsageOf(engine(), second.finish.usage, true);
    // Kept: the first prompt (3 + (4 + 3) + (4 + 2) = 16 of the double's tokens) and the 2 answer tokens.
    expect(second.finish.usage).toMatchObject({ cachedTokens: 18, promptTokens: 18 + 3 + 4 + 4 });
    history.push(assistant(second.text), user('And now?'));
    const third = await turn(says('Still', ' fine'), { messages: history });
    expectUsageOf(engine(), third.finish.usage, true);
    expect(third.finish.usage.cachedTokens).toBe(second.finish.usage.promptTokens + 2);
  });

  it('an edited history, a reply cut by max_tokens, and an abort start afresh, as web-llm does', async () => {
    const { turn, engine } = setup();
    const first = await turn(says('Hi', ' there'), { messages: [user('Hello')] });
    const edited = await turn(says('Ok'), { messages: [user('Hello'), assistant(`${first.text}!`), user('Next')] });
    expectUsageOf(engine(), edited.finish.usage, false);
    const capped = await turn(says('a', 'b', 'c'), { messages: [user('Hello')], maxTokens: 2 });
    expect(capped.finish.reason).toBe('length');
    const afterCap = await turn(says('Ok'), { messages: [user('Hello'), assistant(capped.text), user('Next')] });
    expectUsageOf(engine(), afterCap.finish.usage, false);
  });
});

describe('stop strings: web-llm stops at them itself and keeps its conversation', () => {
  it.each([
    ['across tokens', ['Sure', ' E', 'ND', ' more'], ' END', 'Sure'],
    ['inside one token', ['Sure', '!END', 'x'], 'END', 'Sure!'],
  ])('%s: the answer is cut before it, finish stop_sequence, no interrupt, and the next turn reuses', async (_, steps, stop, text) => {
    const { turn, engine } = setup();
    const first = await turn(says(...steps), { messages: [user('Hello')], stop: [stop, 'never'] });
    expect(first.text).toBe(text);
    expect(first.finish).toMatchObject({ reason: 'stop_sequence', stopSequence: stop });
    // Every token web-llm sampled, the one that completed the stop string included.
    expect(first.finish.usage.completionTokens).toBe(steps.indexOf(steps.find((s, i) => steps.slice(0, i + 1).join('').includes(stop))!) + 1);
    expect(engine().interrupts).toBe(0);
    expect(engine().requests[0]!.stop).toEqual([stop, 'never']);
    const second = await turn(says('Ok'), { messages: [user('Hello'), assistant(first.text), user('Go on')], stop: [stop] });
    expectUsageOf(engine(), second.finish.usage, true);
    // The cache holds the prompt and every answer token but the last sampled (the stop string's).
    expect(second.finish.usage.cachedTokens).toBe(first.finish.usage.promptTokens + first.finish.usage.completionTokens - 1);
  });

  it("where the earliest stop string (the gateway's rule) is not the one web-llm cut at, the next turn starts afresh, as web-llm does", async () => {
    const { turn, engine } = setup();
    // Last token "ab": web-llm tries "b" first and records "xa"; the answer is "x", cut before "a".
    const first = await turn(says('x', 'ab'), { messages: [user('Hello')], stop: ['b', 'a'] });
    expect(first).toMatchObject({ text: 'x', finish: { reason: 'stop_sequence', stopSequence: 'a' } });
    const second = await turn(says('Ok'), { messages: [user('Hello'), assistant(first.text), user('Go on')] });
    expectUsageOf(engine(), second.finish.usage, false);
  });

  it('a stop string with the token that reaches max_tokens: stop_sequence, as the gateway reports it', async () => {
    const { turn } = setup();
    const first = await turn(says('Sure', ' E', 'ND'), { messages: [user('Hello')], stop: [' END'], maxTokens: 3 });
    expect(first).toMatchObject({ text: 'Sure', finish: { reason: 'stop_sequence', stopSequence: ' END', usage: { completionTokens: 3 } } });
  });

  it("left to the gateway where it applies them otherwise (a thinking model's answer) or cannot read web-llm's reply: web-llm is interrupted and starts afresh", async () => {
    for (const { spec, internals, steps } of [
      { spec: THINKER, internals: true, steps: ['<think>', 'END?', '</think>', 'Sure', ' END', ' more'] },
      { spec: QWEN, internals: false, steps: ['Sure', ' END', ' more'] },
    ]) {
      const { turn, engine } = setup(spec, { internals });
      const first = await turn(says(...steps), { messages: [user('Hello')], stop: [' END'] });
      expect(first).toMatchObject({ text: 'Sure', finish: { reason: 'stop_sequence', stopSequence: ' END' } });
      expect(engine().requests[0]!.stop).toBeUndefined();
      expect(engine().interrupts).toBe(1);
      await turn(says('Ok'), { messages: [user('Hello'), assistant(first.text), user('Go on')] });
      expect(engine().rounds.at(-1)!.reused).toBe(false);
    }
  });
});

describe('tool calls: the history written back renders as the model wrote its calls', () => {
  const CITY = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'number' } }, required: ['city', 'days'], additionalProperties: false };
  const TOOLS: ToolSpec[] = [{ name: 'get_weather', parameters: CITY }];
  // Spelled as a model may spell it, within the grammar: an escaped letter, a number with a
  // fraction of zero. Written out again from its parsed value it reads {"city": "Paris", "days": 2}.
  const ARGS = '{"city": "Par\\u0069s", "days": 2.0}';
  const CALL = ['<tool_call>\n{"name": "get_weather", "arguments": ', ARGS, '}\n</tool_call>'];

  it.each([
    ['OpenAI (the arguments string as it came)', (args: string) => args],
    ['Anthropic (the input object, serialized again)', (args: string) => JSON.stringify(JSON.parse(args))],
  ])('%s: the turn after a call reuses, and so does the one after its answer', async (_, back) => {
    const { turn, engine } = setup();
    const history: ChatMessage[] = [user('Weather in Paris?')];
    const call = await turn(says(...CALL), { messages: history, tools: TOOLS });
    expect(call).toMatchObject({ calls: ['get_weather'], args: ARGS, finish: { reason: 'tool_calls' } });
    history.push({ role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: back(call.args) }] });
    history.push({ role: 'tool', content: '{"temp": 21}', toolCallId: 'call_1', toolName: 'get_weather' });
    const answer = await turn(says('Sunny', '.'), { messages: history, tools: TOOLS });
    expect(answer.text).toBe('Sunny.');
    expectUsageOf(engine(), answer.finish.usage, true);
    // The prompt and every token of the call (its stop token, not a token of the answer, is never fed back).
    expect(answer.finish.usage.cachedTokens).toBe(call.finish.usage.promptTokens + call.finish.usage.completionTokens);
    // The call, two turns back, still renders as written.
    history.push(assistant(answer.text), user('Thanks'));
    const next = await turn(says('Bye'), { messages: history, tools: TOOLS });
    expectUsageOf(engine(), next.finish.usage, true);
  });

  it('a call whose arguments the client changed is not what web-llm kept: it starts afresh', async () => {
    const { turn, engine } = setup();
    const call = await turn(says(...CALL), { messages: [user('Weather in Paris?')], tools: TOOLS });
    const changed = call.args.replace('2.0', '3');
    const history: ChatMessage[] = [
      user('Weather in Paris?'),
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: changed }] },
      { role: 'tool', content: '{"temp": 21}', toolCallId: 'call_1', toolName: 'get_weather' },
    ];
    const answer = await turn(says('Sunny'), { messages: history, tools: TOOLS });
    expectUsageOf(engine(), answer.finish.usage, false);
  });
});
