/**
 * The structured-output benchmark's table: per request shape and use (first or reused), in Node
 * and in the browser side by side, the median time to first token and its excess over the
 * free-text request with the same prompt, the median decode time per token, and the decode speed
 * against that free request's (free ms/token ÷ the row's: 1 is no cost, the target is ≥ 0.90).
 * Then the first requests after the load (the one-offs), and every error a request met.
 * @module
 */
import { TOOL_CALL_OPEN } from '../../../src/core/tool-syntax.ts';
import { baselineOf, SHAPES, type Shape, type StructuredSample, type Use } from '../../pages/lib/structured.ts';
import type { Profile } from '../options.ts';
import type { StructuredResult } from '../structured-results.ts';
import { f, ratio, signed, table, type Row } from './format.ts';
import { judge, shown } from './verdict.ts';

/** Decode speed against free text, at least (the issue's target). */
export const SPEED_TARGET = 0.9;

const median = (values: readonly number[]) => {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export interface Figures {
  readonly firstTokenMs?: number;
  readonly msPerToken?: number;
  readonly promptTokens?: number;
  readonly tokens?: number;
  readonly samples: number;
  readonly errors: readonly string[];
}

/** Medians of one shape and use over the rounds (`after load`: the request before them). */
export function figures(result: StructuredResult, shape: Shape, use: Use, afterLoad = false): Figures {
  const of = result.samples.filter((s) => s.shape === shape && s.use === use && (afterLoad ? s.round < 0 : s.round >= 0));
  const ok = of.filter((s): s is StructuredSample & { firstTokenMs: number } => s.error === undefined && s.firstTokenMs !== undefined);
  return {
    firstTokenMs: median(ok.map((s) => s.firstTokenMs)),
    msPerToken: median(ok.flatMap((s) => (s.msPerToken === undefined ? [] : [s.msPerToken]))),
    promptTokens: of.find((s) => s.promptTokens !== undefined)?.promptTokens,
    tokens: median(ok.flatMap((s) => (s.tokens === undefined ? [] : [s.tokens]))),
    samples: of.length,
    errors: of.flatMap((s) => (s.error ? [s.error] : [])),
  };
}

/** Each row of the table: shape and use, and per place its figures against its free baseline's. */
export function rows(result: StructuredResult) {
  const uses = (shape: Shape): Use[] => (shape.startsWith('free') ? ['free'] : ['first', 'reused']);
  return SHAPES.flatMap((shape) =>
    uses(shape).map((use) => {
      const row = figures(result, shape, use);
      const free = figures(result, baselineOf(shape), 'free');
      return {
        shape,
        use,
        ...row,
        overFreeMs: row.firstTokenMs !== undefined && free.firstTokenMs !== undefined ? row.firstTokenMs - free.firstTokenMs : undefined,
        speed: row.msPerToken !== undefined && free.msPerToken !== undefined ? free.msPerToken / row.msPerToken : undefined,
      };
    }),
  );
}

const placeName = (where: StructuredResult['where']) => (where === 'node' ? 'Node' : where === 'wasm' ? 'WASM' : 'WebGPU');
const placeWeights = (r: StructuredResult) => `${placeName(r.where)} ${r.dtype}`;

/** The slowest constrained row's speed against free, judged against the target. */
export function speedTarget(result: StructuredResult, profile: Profile) {
  const constrained = rows(result).filter((r) => r.use !== 'free' && r.speed !== undefined);
  if (constrained.length === 0) return undefined;
  const slowest = constrained.reduce((a, b) => (b.speed! < a.speed! ? b : a));
  return { slowest, judged: judge({ value: slowest.speed!, limit: SPEED_TARGET, at: 'least', unit: '×' }, {}, profile, `medians of ${result.rounds} round${result.rounds > 1 ? 's' : ''}`) };
}

export function structuredReport(results: readonly StructuredResult[], profile: Profile): string {
  if (results.length === 0) return 'No part of the structured-output benchmark ran.';
  const places = results.map((r) => ({ result: r, name: placeName(r.where), rows: rows(r) }));
  const first = results[0]!;
  const headers = ['request', 'use', 'prompt tokens', 'tokens', ...places.flatMap(({ name }) => [`${name} first token ms`, `${name} − free`, `${name} ms/token`, `${name} speed ÷ free`])];
  const marked = (speed: number | undefined) => (speed === undefined ? undefined : `${ratio(speed)}${speed < SPEED_TARGET ? ' ✗' : ''}`);
  const table1: Row[] = places[0]!.rows.map((row, i) => [
    row.shape,
    row.use,
    places.map((p) => p.rows[i]!.promptTokens).find((n) => n !== undefined),
    // Generated tokens (medians); where the places differ, each place's.
    [...new Set(places.map((p) => p.rows[i]!.tokens).filter((n) => n !== undefined))].map((n) => f(n, 0)).join(' / ') || undefined,
    ...places.flatMap(({ rows }) => {
      const r = rows[i]!;
      if (r.firstTokenMs === undefined) return [r.errors.length ? 'error' : undefined, undefined, undefined, undefined];
      return [f(r.firstTokenMs, 0), r.use === 'free' ? undefined : signed(r.overFreeMs, 0), f(r.msPerToken, 1), r.use === 'free' ? undefined : marked(r.speed)];
    }),
  ]);
  const afterLoad: Row[] = SHAPES.map((shape) => [
    shape,
    ...places.map(({ result }) => {
      const r = figures(result, shape, shape.startsWith('free') ? 'free' : 'reused', true);
      return r.firstTokenMs === undefined ? (r.errors.length ? 'error' : undefined) : f(r.firstTokenMs, 0);
    }),
  ]);
  const errors = places.flatMap(({ result, name }) =>
    SHAPES.flatMap((shape) =>
      (['first', 'reused', 'free'] as const).flatMap((use) => {
        const all = result.samples.filter((s) => s.shape === shape && s.use === use && s.error);
        return all.length ? [`- ${name}, ${shape}, ${use}: ${all.length} of ${result.samples.filter((s) => s.shape === shape && s.use === use).length} failed: ${all[0]!.error}`] : [];
      }),
    ),
  );
  const targets = places.map(({ result, name }) => {
    const t = speedTarget(result, profile);
    return t ? `- ${name}: slowest constrained decode ${ratio(t.slowest.speed)} of free (${t.slowest.shape}, ${t.slowest.use}): ${shown(t.judged)}` : `- ${name}: no constrained row measured`;
  });
  // With a choice, a model may answer in text: the row then times text under the grammar, not a call.
  const autoReplies = places.flatMap(({ result, name }) => {
    const auto = result.samples.filter((s) => s.shape === 'tool_choice auto, two tools' && s.round >= 0 && s.text !== undefined);
    const calls = auto.filter((s) => s.text!.includes(TOOL_CALL_OPEN)).length;
    return auto.length ? [`${name} ${calls} of ${auto.length}`] : [];
  });
  return [
    `### Structured output on the real-shaped Qwen2.5-0.5B: ${places.map((p) => placeWeights(p.result)).join(', ')}`,
    '',
    `Greedy, at most ${first.maxTokens} tokens, the prefix cache off; medians of ${first.rounds} round${first.rounds > 1 ? 's' : ''} (each request shape first-use then reused, twice for free text). First token: from the \`engine.chat\` call to the first token; − free: over the free-text request with the same prompt (the tool rows' prompts hold the tools' definitions). ms/token: from the first token to the last over the tokens after the first; speed ÷ free: the free request's ms/token over the row's (✗ below ${SPEED_TARGET}). Load: ${places.map((p) => `${p.name} ${(p.result.loadMs / 1000).toFixed(1)} s`).join(', ')}.`,
    '',
    table(headers, table1),
    '',
    ...(autoReplies.length ? [`\`tool_choice: auto\` answered with a tool call in ${autoReplies.join(', ')} requests (the others in text, under the grammar).`, ''] : []),
    `Target, constrained decode at least ${SPEED_TARGET}× as fast as free text on every row:`,
    '',
    ...targets,
    '',
    '**The first requests after the load** (unsalted, before the rounds, in this order: the constrained ones pay the one-offs of the first schema and the first tools — token-mask tables, the grammar engine and its vocabulary; first token, ms):',
    '',
    table(['request', ...places.map((p) => p.name)], afterLoad),
    ...(errors.length ? ['', '**Errors:**', '', ...errors] : []),
  ].join('\n');
}
