/**
 * The browser snippets of the README and the guides, run in a page of the e2e build's origin
 * (its service worker, engine worker, onnxruntime wasm and tiny models), as an app would run them:
 * each `browser` snippet is bundled by vite from the package's sources, each `html` snippet is
 * served as written, with `/inpage-llm/client.js` (what `init` copies) built from the sources.
 * A snippet passes when its code ran to the end with no uncaught error. (test/docs/snippets.test.ts
 * type-checks them, and runs the Node ones.)
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { build } from 'vite';
import { allSnippets, moduleScriptsOf, ORIGIN_SOURCES, ROOT, withSourceImports, type Snippet } from '../test/docs/snippets.ts';

const DIST = join(ROOT, process.env.E2E_DIST ?? 'build');
/** Served by the e2e server (vite preview serves files added to its folder). */
const OUT = join(DIST, 'docs-snippets');
const browserSnippets = allSnippets().filter((s) => s.kind === 'browser' || s.kind === 'html');
const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const define = { __INPAGE_VERSION__: JSON.stringify(version), __INPAGE_BUILD__: JSON.stringify(`${version}-docs`) };
const DONE = '\n;(globalThis as { __snippetDone?: boolean }).__snippetDone = true;\n';

/** The page that runs snippet i, under /docs-snippets/. */
const pageOf = (i: number) => `/docs-snippets/snippet-${i}.html`;

test.beforeAll(async () => {
  test.setTimeout(300_000);
  await rm(OUT, { recursive: true, force: true });
  const runDir = join(ROOT, 'test/docs/.run');
  await mkdir(runDir, { recursive: true });
  const src = await mkdtemp(join(runDir, 'browser-'));
  const input: Record<string, string> = {};
  for (const [i, snippet] of browserSnippets.entries()) {
    if (snippet.kind !== 'browser') continue;
    await writeFile(join(src, `snippet-${i}.ts`), `// ${snippet.where}\n${withSourceImports(snippet.code, snippet.where)}${DONE}`);
    await writeFile(join(src, `snippet-${i}.html`), `<!doctype html>\n<meta charset="utf-8">\n<title>${snippet.where}</title>\n<script type="module" src="./snippet-${i}.ts"></script>\n`);
    input[`snippet-${i}`] = join(src, `snippet-${i}.html`);
  }
  const shared = { configFile: false, logLevel: 'warn', publicDir: false, define, worker: { format: 'es' } } as const;
  await build({ ...shared, root: src, base: '/docs-snippets/', build: { outDir: OUT, emptyOutDir: false, target: 'es2022', modulePreload: false, rollupOptions: { input } } });
  // The page library as `init` puts it on the origin: one self-contained module.
  for (const [url, source] of Object.entries(ORIGIN_SOURCES)) {
    const name = url.slice(1).replaceAll('/', '_').replace(/\.js$/, '');
    await build({ ...shared, root: src, build: { outDir: join(OUT, 'origin'), emptyOutDir: false, target: 'es2022', lib: { entry: join(ROOT, source), formats: ['es'], fileName: () => `${name}.js` }, rollupOptions: { output: { codeSplitting: false } } } });
  }
  for (const [i, snippet] of browserSnippets.entries()) {
    if (snippet.kind !== 'html') continue;
    const scripts = moduleScriptsOf(snippet.code);
    expect(scripts, `${snippet.where}: one inline module script`).toHaveLength(1);
    const marked = snippet.code.replace(scripts[0]!, `${scripts[0]!}${DONE.replace(' as { __snippetDone?: boolean }', '')}`);
    await writeFile(join(OUT, `snippet-${i}.html`), marked);
  }
  await rm(src, { recursive: true, force: true });
});

/** Serves the origin files a snippet may import by URL (`/inpage-llm/client.js`), built from the sources. */
async function routeOriginFiles(page: Page): Promise<void> {
  for (const url of Object.keys(ORIGIN_SOURCES)) {
    const name = url.slice(1).replaceAll('/', '_').replace(/\.js$/, '');
    const body = await readFile(join(OUT, 'origin', `${name}.js`), 'utf8');
    await page.route(`**${url}`, (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body }));
  }
}

for (const [i, snippet] of browserSnippets.entries()) {
  test(`${snippet.where} (${snippet.kind}) runs to the end`, async ({ page }) => {
    const errors: string[] = [];
    const logs: string[] = [];
    page.on('pageerror', (error) => errors.push(error.stack ?? error.message));
    page.on('console', (message) => logs.push(`[${message.type()}] ${message.text()}`));
    if (snippet.kind === 'html') await routeOriginFiles(page);
    await page.goto(pageOf(i));
    const state = () => page.evaluate(() => ((globalThis as { __snippetDone?: boolean }).__snippetDone ? 'done' : 'running')).catch(() => 'running');
    await expect.poll(async () => (errors.length ? 'failed' : await state()), { timeout: 150_000, message: `${snippet.where}: still running. Console:\n${logs.join('\n')}` }).not.toBe('running');
    expect(errors, `${snippet.where} threw. Console:\n${logs.join('\n')}`).toEqual([]);
  });
}

test('the page snippets include both kinds', () => {
  const kinds = new Set(browserSnippets.map((s: Snippet) => s.kind));
  expect([...kinds].sort()).toEqual(['browser', 'html']);
});
