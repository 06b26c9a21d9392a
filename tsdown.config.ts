/**
 * The package build (`npm run build:package`): what `npm install inpage-llm` gives an app.
 *
 * - The library entries, ESM with types; dependencies stay imports, for the app's bundler.
 * - The prebuilt browser scripts (`dist/browser/`), self-contained, for `npx inpage-llm init` and
 *   the vite plugin to put on the app's origin (src/contracts/runtime-layout.ts). The service-worker
 *   scripts are one file each without imports, so `importScripts` can load them as well as a module
 *   worker can.
 *
 * - onnxruntime-web's wasm, the one build the engine worker loads, and its glue (loaded by URL so
 *   that its threads start as workers of it), copied beside it: the package
 *   does not depend on transformers.js (nor, through it, on onnxruntime-web and onnxruntime-node)
 *   at install, so the wasm travels in the tarball (docs/decisions/small-browser-install.md).
 *
 * The playground is not part of it: `vite build` makes that from source.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { defineConfig, type UserConfig } from 'tsdown';
import { ORT_MJS_FILE, ORT_MJS_SOURCE, ORT_WASM_FILE } from './src/contracts/runtime-layout.ts';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };
// The onnxruntime-web that the bundled transformers.js imports, and so the wasm that matches it.
const ortWasm = createRequire(createRequire(import.meta.url).resolve('@huggingface/transformers')).resolve(`onnxruntime-web/${ORT_WASM_FILE}`);
const ortWebVersion = (JSON.parse(readFileSync(join(dirname(ortWasm), '..', 'package.json'), 'utf8')) as { version: string }).version;
const define = { __INPAGE_VERSION__: JSON.stringify(version), __INPAGE_BUILD__: JSON.stringify(version), __ORT_WEB_VERSION__: JSON.stringify(ortWebVersion) };
const shared: UserConfig = { define, target: 'es2022', tsconfig: 'tsconfig.package.json', logLevel: 'warn' };

/** A browser script with everything bundled in. */
const browserScript = (name: string, entry: string, format: 'esm' | 'iife'): UserConfig => ({
  ...shared,
  entry: { [name]: entry },
  outDir: 'dist/browser',
  clean: false,
  platform: 'browser',
  format,
  dts: false,
  minify: true,
  deps: { alwaysBundle: [/.*/], onlyBundle: false },
  outExtensions: () => ({ js: '.js' }),
  outputOptions: { entryFileNames: '[name].js', chunkFileNames: 'inpage-llm/chunks/[name]-[hash].js' },
});

export default defineConfig([
  {
    ...shared,
    entry: {
      index: 'src/client/index.ts',
      gateway: 'src/gateway/index.ts',
      msw: 'src/msw/handlers.ts',
      'service-worker': 'src/sw/index.ts',
      'engine-worker': 'src/worker/index.ts',
    },
    platform: 'neutral',
    format: 'esm',
    dts: true,
    outExtensions: () => ({ js: '.js', dts: '.d.ts' }),
  },
  {
    ...shared,
    // The Node entry through its guard: a clear message when transformers.js is not installed.
    entry: { node: 'src/node/entry.ts', vite: 'src/vite/plugin.ts', cli: 'src/cli/main.ts' },
    clean: false,
    platform: 'node',
    format: 'esm',
    dts: true,
    outExtensions: () => ({ js: '.js', dts: '.d.ts' }),
  },
  browserScript('inpage-llm-sw', 'src/sw/main.ts', 'iife'),
  browserScript('inpage-llm/handle-inference', 'src/sw/import-entry.ts', 'iife'),
  {
    ...browserScript('inpage-llm/engine-worker', 'src/worker/main.ts', 'esm'),
    copy: [{ from: ortWasm, to: 'dist/browser/inpage-llm' }, { from: ortWasm.replace(ORT_WASM_FILE, ORT_MJS_SOURCE), to: 'dist/browser/inpage-llm', rename: ORT_MJS_FILE }],
  },
  browserScript('inpage-llm/client', 'src/client/index.ts', 'esm'),
]);
