/** Markdown for the report: numbers, ratios, tables, and rows found by name. @module */
import type { Named } from '../results.ts';

export type Row = (string | number | undefined)[];

const shown = (v: number | undefined): v is number => v !== undefined && Number.isFinite(v);
export const f = (v: number | undefined, digits = 3) => (shown(v) ? v.toFixed(digits) : '—');
export const ratio = (v: number | undefined) => (shown(v) ? `${v.toFixed(2)}×` : '—');
export const signed = (v: number | undefined, digits = 3) => (shown(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(digits)}` : '—');
export const percent = (a: number, b: number) => `${((a / b) * 100).toFixed(1)}%`;

export function table(headers: string[], rows: Row[]): string {
  const cells = rows.map((r) => r.map((c) => (c === undefined ? '—' : String(c))));
  return [`| ${headers.join(' | ')} |`, `|${headers.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...cells.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** The first row whose name starts with `prefix`. */
export function find<T extends Named>(items: readonly T[] | undefined, prefix: string): T | undefined {
  return items?.find((i) => i.name.startsWith(prefix));
}

export function exact<T extends Named>(items: readonly T[] | undefined, name: string): T | undefined {
  return items?.find((i) => i.name === name);
}
