/**
 * Every `pattern` (and `patternProperties` key) of the maskbench schemas, compiled and checked
 * against RegExp (`u` flag) on the strings of those schemas' tests and mutations of them. Prints
 * how many compile, how many are refused (and why), and the compile time's p50 / p99.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compilePattern, UnsupportedPattern } from './pattern.ts';
import type { CharAutomaton } from './char-automaton.ts';
import { MASKBENCH_DIR, maskbenchMissing } from '../../../test/support/maskbench.ts';
import { skippedTitle } from '../../../test/support/skipped-title.ts';

function run(automaton: CharAutomaton, text: string): number {
  let state = automaton.start;
  for (const ch of text) if ((state = automaton.next(state, ch.codePointAt(0)!)) === -1) return -1;
  return state;
}

const FOLDER = MASKBENCH_DIR;
const missing = maskbenchMissing();

function collectPatterns(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collectPatterns(item, into);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'pattern' && typeof value === 'string') into.add(value);
    if (key === 'patternProperties' && value !== null && typeof value === 'object' && !Array.isArray(value)) for (const name of Object.keys(value)) into.add(name);
    collectPatterns(value, into);
  }
}

function collectStrings(node: unknown, into: Set<string>): void {
  if (typeof node === 'string') into.add(node);
  else if (Array.isArray(node)) for (const item of node) collectStrings(item, into);
  else if (node !== null && typeof node === 'object')
    for (const [key, value] of Object.entries(node)) {
      into.add(key);
      collectStrings(value, into);
    }
}

/** A few strings near `text`: one character dropped, doubled, replaced, or added at either end. */
function mutations(text: string, seed: number): string[] {
  const cps = Array.from(text);
  const out = [text + 'a', '0' + text, text + '-', ' ' + text, text.toUpperCase(), text.toLowerCase(), text + '\n'];
  if (cps.length > 0) {
    const i = seed % cps.length;
    out.push([...cps.slice(0, i), ...cps.slice(i + 1)].join(''));
    out.push([...cps.slice(0, i + 1), ...cps.slice(i)].join(''));
    out.push([...cps.slice(0, i), 'Z', ...cps.slice(i + 1)].join(''));
    out.push([...cps.slice(0, i), '9', ...cps.slice(i + 1)].join(''));
    out.push(cps.slice(0, -1).join(''));
  }
  return out;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

describe.skipIf(missing !== undefined)(skippedTitle('maskbench patterns', missing), () => {
  it('compile or are refused, and agree with RegExp where they compile', () => {
    // Strings seen with each pattern: those of the files it occurs in.
    const stringsOf = new Map<string, Set<string>>();
    for (const file of readdirSync(FOLDER)) {
      if (!file.endsWith('.json')) continue;
      const doc = JSON.parse(readFileSync(join(FOLDER, file), 'utf8')) as { schema?: unknown; tests?: { data?: unknown }[] };
      const patterns = new Set<string>();
      collectPatterns(doc.schema, patterns);
      if (patterns.size === 0) continue;
      const strings = new Set<string>();
      for (const test of doc.tests ?? []) collectStrings(test.data, strings);
      for (const p of patterns) {
        let set = stringsOf.get(p);
        if (!set) stringsOf.set(p, (set = new Set()));
        for (const s of strings) if (set.size < 60) set.add(s);
      }
    }

    const times: number[] = [];
    const refusals = new Map<string, number>();
    let compiled = 0;
    let invalid = 0;
    let checked = 0;
    const disagreements: string[] = [];
    for (const [source, strings] of stringsOf) {
      let regexp: RegExp;
      try {
        regexp = new RegExp(source, 'u');
      } catch {
        invalid++;
        expect(() => compilePattern(source)).toThrow(UnsupportedPattern);
        continue;
      }
      const t0 = performance.now();
      let automaton;
      try {
        automaton = compilePattern(source);
      } catch (error) {
        if (!(error instanceof UnsupportedPattern)) throw error;
        const reason = error.message.replace(/\(.*\)|\{.*\}|\d+/g, '…');
        refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
        continue;
      }
      times.push(performance.now() - t0);
      compiled++;
      let seed = 0;
      for (const text of strings) {
        for (const probe of [text, ...mutations(text, seed++)]) {
          const state = run(automaton, probe);
          const got = state !== -1 && automaton.accepts(state);
          checked++;
          if (got !== regexp.test(probe)) disagreements.push(`${source} on ${JSON.stringify(probe)}: ${got}`);
          if (state !== -1 && !automaton.canFinish(state, 0, Infinity)) disagreements.push(`${source}: dead state after ${JSON.stringify(probe)}`);
        }
      }
    }
    times.sort((a, b) => a - b);
    // A second pass, once the compiler's code is warm: what a long-running page sees.
    const warm: number[] = [];
    for (const source of stringsOf.keys()) {
      const t0 = performance.now();
      try {
        compilePattern(source);
      } catch {
        continue;
      }
      warm.push(performance.now() - t0);
    }
    warm.sort((a, b) => a - b);
    const refused = [...refusals.values()].reduce((a, b) => a + b, 0);
    console.log(
      `maskbench: ${stringsOf.size} distinct patterns: ${compiled} compiled, ${refused} refused, ${invalid} not valid with the u flag; ` +
        `${checked} strings checked, ${disagreements.length} disagreements; compile (first pass) p50 ${percentile(times, 50).toFixed(3)} ms, p99 ${percentile(times, 99).toFixed(3)} ms, max ${percentile(times, 100).toFixed(3)} ms; ` +
        `(warm) p50 ${percentile(warm, 50).toFixed(3)} ms, p99 ${percentile(warm, 99).toFixed(3)} ms, max ${percentile(warm, 100).toFixed(3)} ms`,
    );
    console.log('refused:', Object.fromEntries([...refusals].sort((a, b) => b[1] - a[1])));
    expect(disagreements.slice(0, 20)).toEqual([]);
  }, 300_000);
});
