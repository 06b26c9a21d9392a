/**
 * The drafted-decoding benchmark's workload (`npm run bench -- --drafts`), the same in Node
 * (bench/driver/drafts-run.ts) and in the browser (bench/pages/drafts.ts): two engines side by side,
 * prompt lookup off and on, greedy, the same token cap, rounds alternating which goes first; each
 * request timed from its first token to its last. Each answer is checked to be the one without
 * drafts (drafts never change the answer): a sample whose answer differs is marked.
 * @module
 */
import type { ChatRequest, Engine } from '../../../src/core/engine.ts';

/** Every request's cap. */
export const DRAFT_MAX_TOKENS = 64;

export interface DraftSample {
  readonly model: string;
  /** Where it ran: `node`, or the browser's backend. */
  readonly where: string;
  readonly row: string;
  readonly round: number;
  readonly msPerToken: number;
  readonly firstTokenMs: number;
  readonly tokens: number;
  readonly accepted?: number;
  readonly rejected?: number;
  /** The answer differed from the model's answer without drafts. */
  readonly differs?: true;
}

export interface DraftRow {
  readonly row: string;
  /** Which engine: prompt lookup on or off. */
  readonly lookup: boolean;
  readonly prompt: string;
  /** How the prediction is made of the answer without drafts: `answer`, one word in n changed, or a text of its own. */
  readonly prediction?: { readonly kind: 'answer' } | { readonly kind: 'changed'; readonly every: number } | { readonly kind: 'text'; readonly text: string };
}

/** The rows on the real-shaped Qwen: free text, predictions of falling quality, a passage to repeat. */
export function qwenRows(free: string, passage: string): DraftRow[] {
  return [
    { row: 'free, lookup off', lookup: false, prompt: free },
    { row: 'free, lookup on', lookup: true, prompt: free },
    { row: 'prediction: the answer', lookup: false, prompt: free, prediction: { kind: 'answer' } },
    { row: 'prediction: 1 word in 10 changed', lookup: false, prompt: free, prediction: { kind: 'changed', every: 10 } },
    { row: 'prediction: 1 word in 4 changed', lookup: false, prompt: free, prediction: { kind: 'changed', every: 4 } },
    { row: 'prediction: 1 word in 2 changed', lookup: false, prompt: free, prediction: { kind: 'changed', every: 2 } },
    { row: 'prediction: nothing shared', lookup: false, prompt: free, prediction: { kind: 'text', text: 'Quarterly revenue rose by 4.2% in the northern region, while costs fell in the south. '.repeat(3) } },
    { row: 'passage to repeat, lookup off', lookup: false, prompt: `Repeat this passage exactly:\n\n${passage}` },
    { row: 'passage to repeat, lookup on', lookup: true, prompt: `Repeat this passage exactly:\n\n${passage}` },
  ];
}

function predictionOf(row: DraftRow, answer: string): string | undefined {
  const p = row.prediction;
  if (!p) return undefined;
  if (p.kind === 'answer') return answer;
  if (p.kind === 'text') return p.text;
  return answer.split(' ').map((word, i) => (i % p.every === p.every - 1 ? 'zebra' : word)).join(' ');
}

async function timed(engine: Engine, model: string, prompt: string, maxTokens: number, prediction: string | undefined, now: () => number) {
  const request: ChatRequest = { model, messages: [{ role: 'user', content: prompt }], maxTokens, stop: [], temperature: 0, ...(prediction !== undefined ? { prediction } : {}) };
  const t0 = now();
  let first: number | undefined;
  let last = t0;
  let tokens = 0;
  let text = '';
  let counts: { accepted: number; rejected: number } | undefined;
  for await (const event of engine.chat(request, { signal: new AbortController().signal })) {
    if (event.type === 'prediction') counts = { accepted: event.accepted, rejected: event.rejected };
    if (event.type !== 'token') continue;
    last = now();
    first ??= last;
    tokens++;
    text += event.text;
  }
  return { text, tokens, firstTokenMs: (first ?? last) - t0, msPerToken: tokens > 1 ? (last - first!) / (tokens - 1) : NaN, ...(prediction !== undefined ? (counts ?? { accepted: 0, rejected: 0 }) : {}) };
}

/** The rows on one model, `rounds` times, on its two engines (their model loaded or loading on first use). */
export async function runDrafts(engines: { readonly off: Engine; readonly on: Engine }, where: string, model: string, rows: readonly DraftRow[], rounds: number, now: () => number, log: (line: string) => Promise<void> | void): Promise<DraftSample[]> {
  const samples: DraftSample[] = [];
  // The answers without drafts, which every row must give, and a warm-up of each engine.
  const answers = new Map<string, string>();
  for (const prompt of new Set(rows.map((row) => row.prompt))) {
    answers.set(prompt, (await timed(engines.off, model, prompt, DRAFT_MAX_TOKENS, undefined, now)).text);
    await timed(engines.on, model, prompt, 4, undefined, now);
  }
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? rows : [...rows].reverse();
    for (const row of order) {
      const answer = answers.get(row.prompt)!;
      const out = await timed(row.lookup ? engines.on : engines.off, model, row.prompt, DRAFT_MAX_TOKENS, predictionOf(row, answer), now);
      samples.push({ model, where, row: row.row, round, msPerToken: out.msPerToken, firstTokenMs: out.firstTokenMs, tokens: out.tokens, ...(out.accepted !== undefined ? { accepted: out.accepted, rejected: out.rejected! } : {}), ...(out.text !== answer ? { differs: true as const } : {}) });
      await log(`${where} ${model} round ${round + 1}: ${row.row}: ${out.msPerToken.toFixed(1)} ms/token${out.accepted !== undefined ? `, kept ${out.accepted}, rejected ${out.rejected}` : ''}${out.text !== answer ? ' (ANSWER DIFFERS)' : ''}`);
    }
  }
  return samples;
}
