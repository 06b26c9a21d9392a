/**
 * Every repository path the README, a guide, a decision note, a benchmark doc or a folder's README
 * names exists: a file moved or renamed must take its mentions along. (snippets.test.ts checks the
 * guides' links and the architecture map besides.)
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
/** Folders a run writes (git-ignored): named in the docs, absent from a fresh checkout. */
const GENERATED = ['bench/results/', '.models/', 'test-results/'];

function markdown(dir: string): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules') return [];
    if (statSync(join(ROOT, path)).isDirectory()) return markdown(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

const DOCS = [...markdown('docs'), ...markdown('bench'), ...markdown('src'), 'README.md', ...(existsSync(join(ROOT, 'CONTRIBUTING.md')) ? ['CONTRIBUTING.md'] : [])];

/** The paths a doc names (`src/…`, `bench/…`, …), that are not there: from the root, or from the doc's folder. */
function missingPaths(file: string, text: string): string[] {
  const named = [...text.matchAll(/(?<![\w./-])((?:src|bench|e2e|test|scripts|docs|examples)\/[\w./-]*[\w/])/g)].map((m) => m[1]!);
  return named.filter((path) => !GENERATED.some((folder) => path.startsWith(folder)) && !existsSync(join(ROOT, path)) && !existsSync(join(ROOT, dirname(file), path)));
}

describe('paths named in the docs', () => {
  it('finds the docs it checks', () => {
    expect(DOCS).toEqual(expect.arrayContaining([join('docs', 'decisions', 'two-rpc-mechanisms.md'), join('bench', 'README.md')]));
  });

  it('sees a path that is not there', () => {
    expect(missingPaths('docs/x.md', 'go over comlink (`src/rpc/contract.ts`), see src/core/sse.ts.')).toEqual(['src/rpc/contract.ts']);
  });

  it.each(DOCS.map((file) => [relative(ROOT, join(ROOT, file))]))('%s names only paths that exist', (file) => {
    expect(missingPaths(file, readFileSync(join(ROOT, file), 'utf8'))).toEqual([]);
  });
});
