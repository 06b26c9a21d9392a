/**
 * `npm run bench -- --drafts`: what drafted decoding (predicted outputs, prompt lookup;
 * src/engines/decoding/drafts.ts) does to decode speed, the workload of bench/pages/lib/drafts.ts:
 * - in Node on onnxruntime-node, in the engine `inpage-llm serve` runs (`createNodeEngine`): the
 *   real-shaped Qwen2.5-0.5B q4 and q8 (`npm run models:real`), and stories260K (trained weights,
 *   `../shared/models`; skipped, saying so, where missing) with its story already in the prompt
 *   (copy-heavy) and predicted;
 * - in the browser's engine worker (bench/pages/drafts.ts; `--no-main` skips it): the real-shaped
 *   Qwen q8 on WASM, the page cross-origin isolated.
 * The real-shaped Qwen's weights are generated, so what it writes is not language: a passage to
 * repeat is not repeated by it, and the copy rows that show prompt lookup's gain are stories260K's.
 * Prefix cache off. Returns the markdown and the samples.
 * @module
 */
import { createModelHost } from '../../src/engines/hosting/model-host.ts';
import { createTransformersAdapter } from '../../src/engines/transformers/index.ts';
import { createNodeEngine } from '../../src/node/index.ts';
import { greedyStoryTokens, realWeightsDir, removeRealWeightsDir, sharedModelsMissing, STORIES_ID, storiesSpec, STORY_PROMPT } from '../../test/support/real-weights/index.ts';
import { DRAFT_MAX_TOKENS, qwenRows, runDrafts, type DraftRow, type DraftSample } from '../pages/lib/drafts.ts';
import { chatTextOfTokens } from '../real-models/real-chat.ts';
import type { Options } from './options.ts';
import { REAL_MODELS } from './paths.ts';
import { realModel } from './real-workload.ts';
import { runTask } from './run-task.ts';
import type { BenchServer } from './server.ts';

type Host = ReturnType<typeof createModelHost>;

async function inNode(engineWith: (promptLookup: boolean) => Host, model: string, rows: readonly DraftRow[], rounds: number): Promise<DraftSample[]> {
  const engines = { off: engineWith(false), on: engineWith(true) };
  await engines.off.load(model);
  await engines.on.load(model);
  try {
    return await runDrafts(engines, 'node', model, rows, rounds, () => performance.now(), (line) => console.log(`  ${line}`));
  } finally {
    await engines.off.unload(model);
    await engines.on.unload(model);
  }
}

export async function runDraftsBench(options: Options, server: BenchServer): Promise<{ markdown: string; samples: DraftSample[] }> {
  const profile = options.profile ?? (options.quick ? 'quick' : 'full');
  const rounds = profile === 'quick' ? 1 : profile === 'short' ? 3 : 5;
  const samples: DraftSample[] = [];
  const rows = qwenRows(chatTextOfTokens(64), chatTextOfTokens(48));
  const notes: string[] = [];
  if (options.node) {
    for (const kind of ['chat', 'chat-q8'] as const) {
      const chat = await realModel(kind);
      console.log(`bench: drafts on ${chat.id} in Node, ${rounds} round(s)…`);
      const models = [{ engine: 'transformers' as const, id: chat.id, kind: 'chat' as const, source: chat.id, dtype: chat.dtype, contextWindow: 4096, maxOutputTokens: 512, files: chat.files }];
      samples.push(...(await inNode((promptLookup) => createNodeEngine({ localModelPath: REAL_MODELS, models, prefixCacheBytes: 0, promptLookup }), chat.id, rows, rounds)));
    }
    const missing = sharedModelsMissing();
    if (missing) notes.push(`stories260K skipped: ${missing}`);
    else {
      const dir = await realWeightsDir();
      try {
        const story = await greedyStoryTokens(dir);
        // The story's beginning in the prompt, then its first words again: the model writes it once more.
        const copy = `${STORY_PROMPT}${story.prefix(120)}\n\n${STORY_PROMPT}`;
        const storyRows: DraftRow[] = [
          { row: 'free, lookup off', lookup: false, prompt: STORY_PROMPT },
          { row: 'free, lookup on', lookup: true, prompt: STORY_PROMPT },
          { row: 'prediction: the answer', lookup: false, prompt: STORY_PROMPT, prediction: { kind: 'answer' } },
          { row: 'prediction: 1 word in 4 changed', lookup: false, prompt: STORY_PROMPT, prediction: { kind: 'changed', every: 4 } },
          { row: 'story already in the prompt, lookup off', lookup: false, prompt: copy },
          { row: 'story already in the prompt, lookup on', lookup: true, prompt: copy },
        ];
        console.log(`bench: drafts on ${STORIES_ID} in Node, ${rounds} round(s)…`);
        const engineWith = (promptLookup: boolean) => createModelHost({ adapters: [createTransformersAdapter({ models: [storiesSpec], localModelPath: dir, device: 'cpu', prefixCacheBytes: 0, promptLookup })] });
        samples.push(...(await inNode(engineWith, STORIES_ID, storyRows, rounds)));
      } finally {
        await removeRealWeightsDir();
      }
    }
  }
  if (options.main) {
    const chat = await realModel('chat-q8');
    console.log(`bench: drafts on ${chat.id} in the browser (wasm), ${rounds} round(s)…`);
    const [result] = await runTask(server, { name: 'drafts-wasm', page: '/bench/pages/drafts.html', config: { device: 'wasm', profile, drafts: { chat, rows, rounds } }, results: 1, timeoutMs: 120 * 60_000 }, options.driver);
    samples.push(...(result as DraftSample[]));
  }
  return { markdown: draftsReport(samples, rounds, notes), samples };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * One table a model and place: each row's median ms/token, its speed against the same prompt
 * without drafts (lookup off, no prediction), what the prediction came to, whether the answer held.
 */
export function draftsReport(samples: readonly DraftSample[], rounds: number, notes: readonly string[]): string {
  const out: string[] = [`Greedy, ${DRAFT_MAX_TOKENS} tokens a request, prefix cache off, ${rounds} round(s), medians; speed against the same prompt without drafts.`, ''];
  for (const key of new Set(samples.map((s) => `${s.where} ${s.model}`))) {
    const mine = samples.filter((s) => `${s.where} ${s.model}` === key);
    const rowsOf = [...new Set(mine.map((s) => s.row))];
    const ms = (row: string) => median(mine.filter((s) => s.row === row).map((s) => s.msPerToken));
    /** The same prompt's row without drafts: `… lookup off` beside `… lookup on`, else free text without lookup. */
    const baseOf = (row: string) => (row.endsWith('lookup on') && rowsOf.includes(row.replace(/on$/, 'off')) ? row.replace(/on$/, 'off') : 'free, lookup off');
    out.push(`**${key}**`, '', '| row | ms/token | speed | prediction tokens kept / rejected | answer |', '|---|---|---|---|---|');
    for (const row of rowsOf) {
      const of = mine.filter((s) => s.row === row);
      const kept = of[0]!.accepted !== undefined ? `${median(of.map((s) => s.accepted!))} / ${median(of.map((s) => s.rejected!))}` : '';
      out.push(`| ${row} | ${ms(row).toFixed(1)} | ${(ms(baseOf(row)) / ms(row)).toFixed(2)}× | ${kept} | ${of.some((s) => s.differs) ? '**differs**' : 'same'} |`);
    }
    out.push('');
  }
  for (const note of notes) out.push(note, '');
  return out.join('\n');
}
