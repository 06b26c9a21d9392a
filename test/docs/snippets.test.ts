/**
 * The code blocks of the README and the guides, checked so that none can drift from the code:
 * every block is marked with how it runs, TypeScript and JavaScript ones are type-checked against
 * the package's sources, Node ones are run, and shell ones may only name scripts, commands,
 * options and files that exist. (Browser ones are run by e2e/snippets.spec.ts.)
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { allSnippets, diagramProblems, docFiles, linkProblems, moduleScriptsOf, PACKAGE_SOURCES, ROOT, shellProblems, treeProblems, withSourceImports, type Snippet } from './snippets.ts';

const run = promisify(execFile);
const RUN_DIR = join(ROOT, 'test/docs/.run');
const snippets = allSnippets();
const ofKind = (kind: Snippet['kind']) => snippets.filter((s) => s.kind === kind);
const name = (s: Snippet) => `${s.where} (${s.lang})`;

afterAll(async () => {
  await rm(RUN_DIR, { recursive: true, force: true });
});

describe('the docs', () => {
  it('mark every code block with how it is checked, and have some of each runnable kind', () => {
    // allSnippets() throws on a block without a marker; this pins that it found them.
    const count = (kind: Snippet['kind']) => ofKind(kind).length;
    expect(count('node')).toBeGreaterThanOrEqual(4);
    expect(count('browser')).toBeGreaterThanOrEqual(6);
    expect(count('html')).toBeGreaterThanOrEqual(1);
    expect(count('shell')).toBeGreaterThanOrEqual(3);
  });

  it('map every entry of the package to its source', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    const entries = Object.keys(pkg.exports).filter((key) => !key.includes('*') && key !== './package.json').map((key) => (key === '.' ? 'inpage-llm' : `inpage-llm/${key.slice(2)}`));
    expect(Object.keys(PACKAGE_SOURCES).sort()).toEqual(entries.sort());
  });

  it.each(docFiles())('%s: every relative link leads to a file (and heading)', (file) => {
    expect(linkProblems(file)).toEqual([]);
  });
});

describe('shell snippets name only scripts, commands, options and files that exist', () => {
  it.each(ofKind('shell').map((s) => [name(s), s] as const))('%s', (_, snippet) => {
    expect(shellProblems(snippet)).toEqual([]);
  });
});

describe('json snippets match the repository', () => {
  it.each(ofKind('json').map((s) => [name(s), s] as const))('%s', (_, snippet) => {
    const file = snippet.args.trim();
    const own = JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as Record<string, Record<string, unknown>>;
    const shown = JSON.parse(snippet.code) as Record<string, Record<string, unknown>>;
    // Every value shown is the value this repository's own file has (a subset of it).
    for (const [key, value] of Object.entries(shown)) expect(own[key], `${snippet.where}: "${key}" in ${file}`).toMatchObject(value);
  });
});

describe('diagram snippets', () => {
  it.each(ofKind('diagram').map((s) => [name(s), s] as const))('%s names only what exists', (_, snippet) => {
    expect(diagramProblems(snippet)).toEqual([]);
  });
});

describe('tree snippets (the architecture map)', () => {
  it.each(ofKind('tree').map((s) => [name(s), s] as const))('%s names only what exists, and every src/ folder', (_, snippet) => {
    expect(treeProblems(snippet)).toEqual([]);
  });
});

/** Type-checks snippets in one context (lib and types), each as a module with the package's imports mapped to its sources. */
async function typecheck(context: 'node' | 'browser' | 'worker', group: readonly Snippet[]): Promise<string> {
  await mkdir(RUN_DIR, { recursive: true });
  const dir = await mkdtemp(join(RUN_DIR, `tsc-${context}-`));
  const files: string[] = [];
  for (const [i, snippet] of group.entries()) {
    const code = snippet.kind === 'html' ? moduleScriptsOf(snippet.code).join('\n') : snippet.code;
    const file = `snippet-${i}.${snippet.lang === 'js' ? 'js' : 'ts'}`;
    // A header naming the doc line, so an error points back to the markdown; `export {}` keeps each a module.
    await writeFile(join(dir, file), `// ${snippet.where}\nexport {};\n${withSourceImports(code, snippet.where)}`);
    files.push(file);
  }
  const lib = { node: ['ES2024', 'DOM', 'DOM.Iterable', 'DOM.AsyncIterable'], browser: ['ES2024', 'DOM', 'DOM.Iterable', 'DOM.AsyncIterable'], worker: ['ES2024', 'WebWorker', 'WebWorker.Iterable', 'WebWorker.AsyncIterable'] }[context];
  const types = { node: ['node', 'vite/client'], browser: ['vite/client'], worker: ['vite/client'] }[context];
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ extends: join(ROOT, 'tsconfig.base.json'), compilerOptions: { lib, types, allowJs: true, checkJs: true }, files }));
  try {
    await run(join(ROOT, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.json')], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    return '';
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    return `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message;
  }
}

describe('TypeScript and JavaScript snippets type-check against the package', () => {
  const contextOf = (s: Snippet): 'node' | 'browser' | 'worker' | undefined =>
    s.kind === 'node' ? 'node' : s.kind === 'browser' || s.kind === 'html' ? 'browser' : s.kind === 'typecheck-only' ? (s.args.split(':')[0]!.trim() as 'node' | 'browser' | 'worker') : undefined;

  it('typecheck-only snippets name their context and say why they are not run', () => {
    for (const s of ofKind('typecheck-only')) {
      expect(['node', 'browser', 'worker'], s.where).toContain(s.args.split(':')[0]!.trim());
      expect(s.args.split(':').slice(1).join(':').trim().length, `${s.where}: give a reason`).toBeGreaterThan(10);
    }
  });

  for (const context of ['node', 'browser', 'worker'] as const) {
    it(`in the ${context} context`, { timeout: 180_000 }, async () => {
      const group = snippets.filter((s) => contextOf(s) === context);
      expect(group.length).toBeGreaterThan(0);
      // tsc prints paths of the generated files; each file's first line names its place in the docs.
      expect(await typecheck(context, group)).toBe('');
    });
  }
});

describe('Node snippets run', () => {
  it.each(ofKind('node').map((s) => [name(s), s] as const))('%s', { timeout: 120_000 }, async (_, snippet) => {
    await mkdir(RUN_DIR, { recursive: true });
    const dir = await mkdtemp(join(RUN_DIR, 'node-'));
    const file = join(dir, 'snippet.ts');
    await writeFile(file, `// ${snippet.where}\n${withSourceImports(snippet.code, snippet.where)}`);
    // In its own folder, so that files it writes (./models) land there.
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      await import(pathToFileURL(file).href);
    } finally {
      process.chdir(cwd);
    }
  });
});
