/**
 * `npm run bench -- --conversation`: the prefix-cache benchmark. In Node (conversation-node.ts)
 * and in the browser (bench/pages/conversation.ts, on WASM, or WebGPU with `--device webgpu`), on
 * the real-shaped Qwen2.5-0.5B (`npm run models:real`): time to first token per turn of a
 * conversation and per step of an agent loop, with the engine's prefix cache on and off, and the
 * cache's memory. `--no-main` skips the browser, `--no-node` Node; `--profile quick` runs each side
 * once (full: three times). Returns the markdown and the results.
 * @module
 */
import { chatTextOfTokens } from '../real-models/real-chat.ts';
import type { ConversationTexts } from '../pages/lib/conversation.ts';
import { conversationInNode } from './conversation-node.ts';
import type { ConversationResult } from './conversation-results.ts';
import type { Options } from './options.ts';
import { realModel, realWorkload } from './real-workload.ts';
import { conversationCharts, conversationReport } from './report/conversation.ts';
import { runTask } from './run-task.ts';
import type { BenchServer } from './server.ts';

/** The user message's tokens; the chat template adds 5 (`<|im_start|>user\n` … `<|im_end|>\n`). */
const USER_TOKENS = 113;
const TEMPLATE_TOKENS = 5;
const REPLY_TOKENS = 16;

/** A system prompt, ten turns' messages, an agent's task and six tool results, each of one length (variants keep them apart). */
export function conversationTexts(): ConversationTexts {
  return {
    system: chatTextOfTokens(100, 1),
    turns: Array.from({ length: 10 }, (_, i) => chatTextOfTokens(USER_TOKENS, 10 + i)),
    task: chatTextOfTokens(60, 40),
    results: Array.from({ length: 6 }, (_, i) => chatTextOfTokens(60, 50 + i)),
  };
}

export async function runConversationBench(options: Options, server: BenchServer): Promise<{ markdown: string; results: ConversationResult[]; charts: { file: string; svg: string }[] }> {
  const real = await realWorkload();
  const texts = conversationTexts();
  const profile = options.profile ?? (options.quick ? 'quick' : 'full');
  const runs = profile === 'quick' ? 1 : profile === 'short' ? 2 : 3;
  const setup = { texts, runs, replyTokens: REPLY_TOKENS, newTokensPerTurn: USER_TOKENS + TEMPLATE_TOKENS };
  const results: ConversationResult[] = [];
  if (options.node) {
    console.log(`bench: prefix cache in Node, ${runs} run(s) a side…`);
    results.push(await conversationInNode(real, texts, { runs, replyTokens: REPLY_TOKENS, newTokensPerTurn: setup.newTokensPerTurn, log: (line) => console.log(`  ${line}`) }));
  }
  if (options.main) {
    const device = options.device === 'webgpu' ? 'webgpu' : 'wasm';
    // The weights the catalog's Qwen loads on that backend: 8-bit on WASM (docs/decisions/cpu-path.md), 4-bit on WebGPU.
    const chat = device === 'wasm' ? await realModel('chat-q8') : real.chat;
    console.log(`bench: prefix cache in the browser (${device}, ${chat.dtype}), ${runs} run(s) a side…`);
    const [result] = await runTask(server, { name: `conversation-${device}`, page: '/bench/pages/conversation.html', config: { device, profile, real, conversation: { ...setup, chat } }, results: 1, timeoutMs: 180 * 60_000 }, options.driver);
    results.push(result as ConversationResult);
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const sections: string[] = [];
  const charts: { file: string; svg: string }[] = [];
  for (const result of results) {
    const drawn = await conversationCharts(result, (name) => `${stamp}-prefix-cache-${name}.svg`);
    sections.push(`${conversationReport(result, profile)}\n\n${drawn.markdown}`);
    charts.push(...drawn.charts);
  }
  return { markdown: sections.join('\n\n'), results, charts };
}
