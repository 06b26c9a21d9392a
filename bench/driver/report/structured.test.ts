import { describe, expect, it } from 'vitest';
import { SHAPES, type StructuredSample } from '../../pages/lib/structured.ts';
import type { StructuredResult } from '../structured-results.ts';
import { rows, speedTarget, structuredReport } from './structured.ts';

/** One round of every shape: free text at 100 ms/token, every constrained row at `ms`. */
function result(where: StructuredResult['where'], ms: number, broken?: string): StructuredResult {
  const samples: StructuredSample[] = SHAPES.flatMap((shape) => {
    const prompt = shape.includes('tool') ? 500 : 80;
    const free = shape.startsWith('free');
    const sample = (use: StructuredSample['use'], round: number): StructuredSample =>
      shape === broken ? { shape, use, round, error: 'Invalid schema for response_format' } : { shape, use, round, firstTokenMs: prompt * 10 + (free ? 0 : use === 'first' ? 300 : 20), msPerToken: free ? 100 : ms, tokens: 48, promptTokens: prompt, text: shape.startsWith('tool:') ? '<tool_call>\n{"name"' : 'text' };
    return free ? [sample('free', -1), sample('free', 0), sample('free', 0)] : [sample('reused', -1), sample('first', 0), sample('reused', 0)];
  });
  return { where, model: 'qwen2.5-0.5b-q4-shaped', dtype: 'q4', maxTokens: 48, rounds: 1, loadMs: 12_000, samples };
}

describe('the structured-output report', () => {
  it('sets each row against the free request with the same prompt', () => {
    const table = rows(result('node', 125));
    const named = table.find((r) => r.shape === 'tool: named' && r.use === 'first')!;
    expect(named.overFreeMs).toBe(300);
    expect(named.speed).toBeCloseTo(0.8);
    expect(table.find((r) => r.shape === 'json_schema: enums' && r.use === 'reused')!.overFreeMs).toBe(20);
    expect(speedTarget(result('node', 125), 'full')!.judged.verdict).toBe('not met');
    expect(speedTarget(result('node', 105), 'full')!.judged.verdict).toBe('met');
    expect(speedTarget(result('node', 105), 'quick')!.judged.verdict).toBe('not judgeable');
  });

  it('shows Node and WASM side by side, and a refused row as an error', () => {
    const markdown = structuredReport([result('node', 105), result('wasm', 125, 'json_schema: nested arrays')], 'full');
    expect(markdown).toContain('| request | use | prompt tokens | tokens | Node first token ms | Node − free | Node ms/token | Node speed ÷ free | WASM first token ms |');
    expect(markdown).toContain('| tool: required | first | 500 | 48 | 5300 | +300 | 105.0 | 0.95× | 5300 | +300 | 125.0 | 0.80× ✗ |');
    expect(markdown).toContain('| json_schema: nested arrays | first | 80 | 48 | 1100 | +300 | 105.0 | 0.95× | error | — | — | — |');
    expect(markdown).toContain('- WASM, json_schema: nested arrays, first: 1 of 1 failed: Invalid schema for response_format');
    expect(markdown).toContain('answered with a tool call in Node 0 of 2, WASM 0 of 2 requests');
  });
});
