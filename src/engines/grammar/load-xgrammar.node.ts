/**
 * xgrammar in Node: its UMD bundle runs as the CommonJS module it is (Node would load the file as
 * ESM, where its CommonJS branch finds no `require`). Each evaluation of the bundle is a fresh
 * wasm instance, which is how a failed one is replaced (xgrammar-instances.ts).
 * @module
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { instanceLoader } from './xgrammar-instances.ts';
import type { LoadXGrammar, XGrammar } from './xgrammar.ts';

let source: Promise<{ file: string; text: string }> | undefined;

export const loadXGrammar: LoadXGrammar = instanceLoader(async () => {
  const { file, text } = await (source ??= (async () => {
    const file = createRequire(import.meta.url).resolve('@mlc-ai/web-xgrammar');
    // Its emscripten loader reaches Node's `module` by dynamic import, which code compiled from a
    // string cannot do under every loader (vitest's, for one); the `require` given here does it.
    return { file, text: (await readFile(file, 'utf8')).replace("await import('module')", "require('module')") };
  })());
  const wrapper = new Function('exports', 'require', 'module', '__filename', '__dirname', text) as (...args: unknown[]) => void;
  const module = { exports: {} as XGrammar };
  wrapper(module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
});
