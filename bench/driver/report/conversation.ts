/**
 * The prefix-cache benchmark's tables and targets (issue targets, judged as every bench target is:
 * verdict.ts): time to first token per turn with the cache on and off, what the cache read, and
 * its memory against its bound.
 * - flat: with the cache, the last three turns' first token at most 1.25× the early turns' (turns
 *   2–4: turn 1 has nothing to reuse), every turn adding the same new tokens;
 * - faster: at the conversation's last turn, at least 5× faster with the cache than without;
 * - bounded: the cache never held more than its bound.
 * @module
 */
import type { Profile } from '../options.ts';
import type { CacheRuns, ConversationResult } from '../conversation-results.ts';
import type { Curve } from '../real-size-results.ts';
import { curveSvg } from './charts.ts';
import { f, ratio, table } from './format.ts';
import { exactly, judge, shown } from './verdict.ts';

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Per turn: medians over the runs of first-token time, on and off; the prompt and cached counts (first run's). */
function perTurn(runs: CacheRuns) {
  const turns = runs.on[0]?.length ?? 0;
  return Array.from({ length: turns }, (_, i) => ({
    turn: i + 1,
    promptTokens: runs.on[0]![i]!.promptTokens,
    cachedTokens: runs.on[0]![i]!.cachedTokens,
    on: median(runs.on.map((run) => run[i]!.firstTokenMs)),
    off: median(runs.off.map((run) => run[i]!.firstTokenMs)),
  }));
}

export function conversationTargets(result: ConversationResult, profile: Profile) {
  const turns = perTurn(result.conversation);
  const basis = `median of ${result.conversation.on.length} run${result.conversation.on.length > 1 ? 's' : ''}`;
  const early = median(turns.slice(1, 4).map((t) => t.on));
  const late = median(turns.slice(-3).map((t) => t.on));
  const last = turns.at(-1)!;
  return {
    flat: { value: late / early, judged: judge({ value: late / early, limit: 1.25, at: 'most', unit: '×' }, {}, profile, basis) },
    faster: { value: last.off / last.on, judged: judge({ value: last.off / last.on, limit: 5, at: 'least', unit: '×' }, {}, profile, basis) },
    bounded: { judged: exactly(result.cache.peakBytes <= result.cache.maxBytes, profile, `after each of ${result.conversation.on.length + result.agent.on.length} runs`) },
  };
}

/** Time to first token against the turn, cache on and off: what the tables show, drawn. */
function turnCurve(runs: CacheRuns, title: string): Curve {
  return { title, x: 'turn', y: 's to first token (median)', points: perTurn(runs).map((t) => ({ x: t.turn, values: { 'cache on': t.on / 1000, 'cache off': t.off / 1000 } })) };
}

/** The report's charts as SVG files, each named by `file(name)` and embedded in the markdown after its table. */
export async function conversationCharts(result: ConversationResult, file: (name: string) => string): Promise<{ markdown: string; charts: { file: string; svg: string }[] }> {
  const curves = { conversation: turnCurve(result.conversation, `A 10-turn conversation, ${result.where}`), agent: turnCurve(result.agent, `A 6-step agent loop, ${result.where}`) };
  const charts = await Promise.all(Object.entries(curves).map(async ([name, curve]) => ({ file: file(`${result.where}-${name}`), svg: await curveSvg(curve), title: curve.title })));
  return { markdown: charts.map((c) => `![${c.title}](${c.file})`).join('\n\n'), charts: charts.map(({ file, svg }) => ({ file, svg })) };
}

export function conversationReport(result: ConversationResult, profile: Profile): string {
  const where = result.where === 'node' ? 'Node (onnxruntime-node, CPU)' : `the browser (${result.where === 'wasm' ? 'WASM' : 'WebGPU'})`;
  const targets = conversationTargets(result, profile);
  const rows = (runs: CacheRuns) => perTurn(runs).map((t) => [t.turn, t.promptTokens, t.cachedTokens, f(t.on / 1000, 2), f(t.off / 1000, 2), ratio(t.off / t.on)]);
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return [
    `### The prefix cache in ${where}: ${result.model}`,
    '',
    `Each turn adds ${result.newTokensPerTurn} new prompt tokens and asks for ${result.replyTokens}; medians of ${result.conversation.on.length} runs a side, each on a fresh engine.`,
    '',
    '**A 10-turn conversation** (time to first token, s):',
    '',
    table(['turn', 'prompt tokens', 'cached (on)', 'cache on', 'cache off', 'off ÷ on'], rows(result.conversation)),
    '',
    '**An agent loop, tools in every request** (time to first tool call, s):',
    '',
    table(['step', 'prompt tokens', 'cached (on)', 'cache on', 'cache off', 'off ÷ on'], rows(result.agent)),
    '',
    table(['target', 'measured', 'verdict'], [
      ['with the cache, the last turns\' first token ≤ 1.25× the early turns\' (2–4)', ratio(targets.flat.value), shown(targets.flat.judged)],
      ['at the last turn, ≥ 5× faster with the cache than without', ratio(targets.faster.value), shown(targets.faster.judged)],
      ['the cache\'s memory within its bound', `${mb(result.cache.peakBytes)} at most (${result.cache.entries} entries), bound ${mb(result.cache.maxBytes)}`, shown(targets.bounded.judged)],
    ]),
  ].join('\n');
}
