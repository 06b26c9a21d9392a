/**
 * The code blocks of the README and the guides, read from the markdown, for the tests that run
 * them (test/docs/snippets.test.ts in Node, e2e/snippets.spec.ts in the browser). Each block is
 * preceded by `<!-- snippet: KIND [args] -->`, which says how it is checked (docs/guides/developing.md
 * lists the kinds). The package's own imports (`inpage-llm`, `inpage-llm/node`, …) are mapped to
 * their sources, so a snippet is checked against the code of this checkout.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

/** The markdown files whose code blocks are run. */
export function docFiles(): string[] {
  const guides = readdirSync(join(ROOT, 'docs/guides')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/guides/${f}`);
  return ['README.md', ...guides];
}

export type SnippetKind = 'node' | 'browser' | 'html' | 'typecheck-only' | 'shell' | 'json' | 'tree' | 'diagram';
const KINDS: readonly SnippetKind[] = ['node', 'browser', 'html', 'typecheck-only', 'shell', 'json', 'tree', 'diagram'];

export interface Snippet {
  /** `README.md:42`: the file and the line of the opening fence. */
  readonly where: string;
  readonly file: string;
  readonly line: number;
  /** The fence's language (`ts`, `js`, `html`, `sh`, `json`, `text`). */
  readonly lang: string;
  readonly kind: SnippetKind;
  /** What follows the kind in the marker: `worker: reason` for typecheck-only, the file for json. */
  readonly args: string;
  readonly code: string;
}

/** Every fenced block of the file; a block without a valid marker just before it is an error. */
export function snippetsOf(file: string, text = readFileSync(join(ROOT, file), 'utf8')): Snippet[] {
  const lines = text.split('\n');
  const out: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(```+)(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2]!;
    const lang = open[3]!;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !new RegExp(`^\\s*${fence}\\s*$`).test(lines[i]!); i++) body.push(lines[i]!);
    if (i >= lines.length) throw new Error(`${file}:${start + 1}: a code block that never closes`);
    let m = start - 1;
    while (m >= 0 && lines[m]!.trim() === '') m--;
    const marker = m >= 0 ? /^<!--\s*snippet:\s*(\S+)\s*(.*?)\s*-->$/.exec(lines[m]!.trim()) : null;
    const where = `${file}:${start + 1}`;
    if (!marker) throw new Error(`${where}: a \`\`\`${lang} block without a <!-- snippet: KIND --> comment before it (kinds: ${KINDS.join(', ')})`);
    const kind = marker[1] as SnippetKind;
    if (!KINDS.includes(kind)) throw new Error(`${where}: unknown snippet kind "${kind}" (kinds: ${KINDS.join(', ')})`);
    if (!lang) throw new Error(`${where}: the fence names no language`);
    out.push({ where, file, line: start + 1, lang, kind, args: marker[2]!, code: body.join('\n') + '\n' });
  }
  return out;
}

export function allSnippets(): Snippet[] {
  return docFiles().flatMap((file) => snippetsOf(file));
}

/** The package's entry points, as its `exports` map names them, and the source of each (tsdown.config.ts). */
export const PACKAGE_SOURCES: Readonly<Record<string, string>> = {
  'inpage-llm': 'src/client/index.ts',
  'inpage-llm/gateway': 'src/gateway/index.ts',
  'inpage-llm/msw': 'src/msw/handlers.ts',
  'inpage-llm/service-worker': 'src/sw/index.ts',
  'inpage-llm/engine-worker': 'src/worker/index.ts',
  'inpage-llm/node': 'src/node/index.ts',
  'inpage-llm/vite': 'src/vite/plugin.ts',
};

/** The files `init` and the vite plugin put on the origin that a snippet may import by URL. */
export const ORIGIN_SOURCES: Readonly<Record<string, string>> = {
  '/inpage-llm/client.js': 'src/client/index.ts',
};

const IMPORT = /(\bfrom\s*|\bimport\s*\(?\s*)(['"])([^'"]+)\2/g;

/** The module specifiers a piece of code imports. */
export function importsOf(code: string): string[] {
  return [...code.matchAll(IMPORT)].map((m) => m[3]!);
}

/**
 * The code with the package's imports pointing at its sources (absolute paths). An `inpage-llm`
 * import that is no entry of the package is an error, not left for the runtime to report.
 */
export function withSourceImports(code: string, where: string): string {
  return code.replace(IMPORT, (whole, head: string, quote: string, spec: string) => {
    const mapped = spec === 'inpage-llm' || spec.startsWith('inpage-llm/') ? PACKAGE_SOURCES[spec] : spec.startsWith('/inpage-llm/') ? ORIGIN_SOURCES[spec] : undefined;
    if (mapped) return `${head}${quote}${join(ROOT, mapped)}${quote}`;
    if (spec === 'inpage-llm' || spec.startsWith('inpage-llm/')) throw new Error(`${where}: imports '${spec}', which is not an entry of the package (package.json "exports")`);
    return whole;
  });
}

/** The inline module scripts of an HTML snippet. */
export function moduleScriptsOf(html: string): string[] {
  return [...html.matchAll(/<script type="module">([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
}

/** Problems with a shell snippet: npm scripts, `npx inpage-llm` commands and options, repository paths it names that do not exist. */
export function shellProblems(snippet: Snippet): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const cli = readFileSync(join(ROOT, 'src/cli/main.ts'), 'utf8');
  const usage = /const USAGE = `([\s\S]*?)`;/.exec(cli)?.[1] ?? '';
  const problems: string[] = [];
  const NPM_BUILTIN = new Set(['install', 'i', 'ci', 'pack', 'publish', 'create', 'init', 'exec', 'update', 'link']);
  for (const raw of snippet.code.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) continue;
    for (const command of line.split(/&&|\|\||;|\|/).map((c) => c.trim().split(/\s+/).filter((w) => !/^[A-Z_]+=/.test(w)))) {
      const [program, first, second] = command;
      if (program === 'npm') {
        const script = first === 'run' ? second : first;
        if (script === undefined) problems.push(`${snippet.where}: "npm" with no command`);
        else if (first === 'run' || !NPM_BUILTIN.has(script)) {
          if (!pkg.scripts[script]) problems.push(`${snippet.where}: "npm ${first === 'run' ? 'run ' : ''}${script}": package.json has no script "${script}"`);
        }
      }
      if (program === 'npx' && first === 'inpage-llm') {
        if (!second || !new RegExp(`command === '${second}'`).test(cli)) problems.push(`${snippet.where}: "npx inpage-llm ${second ?? ''}": src/cli/main.ts has no such command`);
        for (const option of command.filter((w) => w.startsWith('--'))) {
          if (!usage.includes(option)) problems.push(`${snippet.where}: "npx inpage-llm ${second} ${option}": not an option in src/cli/main.ts's usage`);
        }
      }
      for (const word of command) {
        if (/^(src|e2e|test|bench|scripts|docs|examples)\/\S+\.\w+$/.test(word) && !existsSync(join(ROOT, word))) problems.push(`${snippet.where}: "${word}" does not exist`);
      }
    }
  }
  return problems;
}

/** Problems with a tree snippet (the architecture map): paths it names that do not exist, and src/ folders it leaves out. */
export function treeProblems(snippet: Snippet): string[] {
  const named = namedPaths(snippet);
  const problems = diagramProblems(snippet);
  const srcFolders = readdirSync(join(ROOT, 'src'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `src/${d.name}/`);
  for (const folder of srcFolders) if (!named.includes(folder)) problems.push(`${snippet.where}: the map leaves out ${folder}`);
  return problems;
}

/** A diagram's problems: repository paths it names that do not exist. */
export function diagramProblems(snippet: Snippet): string[] {
  return namedPaths(snippet).filter((p) => !existsSync(join(ROOT, p))).map((p) => `${snippet.where}: "${p}" does not exist`);
}

/** The repository paths a block names, each after a space or at a line's start. */
function namedPaths(snippet: Snippet): string[] {
  return [...snippet.code.matchAll(/(?:^|\s)((?:src|test|e2e|bench|scripts|docs|examples)\/[\w./-]*)/gm)].map((m) => m[1]!);
}

/** Relative links in the docs that lead to no file, or to no heading of a markdown file. */
export function linkProblems(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const problems: string[] = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1]!;
    if (/^[a-z]+:/.test(target)) continue;
    const [path, anchor] = target.split('#') as [string, string | undefined];
    const full = path ? resolve(ROOT, file, '..', path) : join(ROOT, file);
    if (!existsSync(full)) {
      problems.push(`${file}: link to ${target}: ${relative(ROOT, full)} does not exist`);
      continue;
    }
    if (anchor && full.endsWith('.md')) {
      const slugs = [...readFileSync(full, 'utf8').matchAll(/^#+ (.*)$/gm)].map((h) => slug(h[1]!));
      if (!slugs.includes(anchor)) problems.push(`${file}: link to ${target}: no such heading`);
    }
  }
  return problems;
}

/** GitHub's anchor for a heading. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, '').replace(/ /g, '-');
}
