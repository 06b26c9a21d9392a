import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';

const root = import.meta.dirname;

/**
 * The service worker must be served from the site root (its scope) under a fixed name. In a build
 * it is its own entry emitted as `sw.js`; in dev `/sw.js` is a module worker importing the source.
 */
function serviceWorker(): Plugin {
  return {
    name: 'inpage-llm:service-worker',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        if (req.url?.split('?')[0] !== '/sw.js') return next();
        res.setHeader('content-type', 'text/javascript');
        res.end(`import '/src/sw/main.ts';\n`);
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
    plugins: [serviceWorker(), ...(mode === 'e2e' ? [mswWorkerScript()] : [])],
    define: { __INPAGE_BUILD__: JSON.stringify(`${process.env.npm_package_version ?? '0'}-${Date.now().toString(36)}`) },
    worker: { format: 'es' },
    build: {
      target: 'es2022',
      rollupOptions: {
        input: { main: resolve(root, 'index.html'), sw: resolve(root, 'src/sw/main.ts'), ...testPages },
        output: { entryFileNames: (chunk) => (chunk.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js') },
      },
    },
    preview: { port: 4173, strictPort: true },
  };
});
