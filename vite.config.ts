import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';

const root = import.meta.dirname;
const { version } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { version: string };

/**
 * The playground is built from source in the layout the package gives apps (see
 * src/contracts/runtime-layout.ts): the service worker at the site root (its scope) and the engine
 * worker under /inpage-llm/, each its own entry under a fixed name; in dev each is a module worker
 * importing its source. The wasm and the tiny models come from `npm run assets` (public/inpage-llm/).
 */
const WORKER_ENTRIES = { 'inpage-llm-sw': 'src/sw/main.ts', 'inpage-llm/engine-worker': 'src/worker/main.ts' } as const;

function workersFromSource(): Plugin {
  return {
    name: 'inpage-llm:workers-from-source',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const source = Object.entries(WORKER_ENTRIES).find(([name]) => req.url?.split('?')[0] === `/${name}.js`)?.[1];
        if (!source) return next();
        res.setHeader('content-type', 'text/javascript');
        res.end(`import '/${source}';\n`);
      });
    },
  };
}

/** Browser tests of the msw handlers need msw's own worker script at the site root. */
function mswWorkerScript(): Plugin {
  return {
    name: 'inpage-llm:msw-worker',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'mockServiceWorker.js', source: readFileSync(resolve(root, 'node_modules/msw/lib/mockServiceWorker.js'), 'utf8') });
    },
  };
}

export default defineConfig(({ mode }) => {
  // Browser tests build extra pages (bundling the official SDKs), the benchmarks (`--mode bench`,
  // run by `npm run bench`) theirs; the product build does neither.
  const pagesOf = (dir: string, prefix: string) =>
    Object.fromEntries(
      readdirSync(resolve(root, dir))
        .filter((f) => f.endsWith('.html'))
        .map((f) => [`${prefix}-${f.replace(/\.html$/, '')}`, resolve(root, dir, f)]),
    );
  const testPages = mode === 'e2e' ? pagesOf('e2e/pages', 'e2e') : mode === 'bench' ? pagesOf('bench/pages', 'bench') : {};
  return {
    plugins: [workersFromSource(), ...(mode === 'e2e' ? [mswWorkerScript()] : [])],
    define: {
      __INPAGE_BUILD__: JSON.stringify(`${version}-${Date.now().toString(36)}`),
      __INPAGE_VERSION__: JSON.stringify(version),
    },
    worker: { format: 'es' },
    build: {
      // dist/ is the package's (tsdown): the playground is an app of this repository, not shipped.
      outDir: 'build',
      target: 'es2022',
      // The workers are plain entries here, and vite's preload helper for dynamic imports (the
      // engine worker's web-llm chunk) reaches for `document`, which workers lack.
      modulePreload: false,
      rollupOptions: {
        input: {
          main: resolve(root, 'index.html'),
          ...Object.fromEntries(Object.entries(WORKER_ENTRIES).map(([name, source]) => [name, resolve(root, source)])),
          ...testPages,
        },
        output: { entryFileNames: (chunk) => (chunk.name in WORKER_ENTRIES ? '[name].js' : 'assets/[name]-[hash].js') },
      },
    },
    preview: { port: 4173, strictPort: true },
  };
});
