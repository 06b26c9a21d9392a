/**
 * xgrammar in Node: its UMD bundle runs as the CommonJS module it is (Node would load the file as
 * ESM, where its CommonJS branch finds no `require`).
 * @module
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { LoadXGrammar, XGrammar } from './xgrammar.ts';

let loaded: Promise<XGrammar> | undefined;

export const loadXGrammar: LoadXGrammar = () =>
  (loaded ??= (async () => {
    const require = createRequire(import.meta.url);
    const file = require.resolve('@mlc-ai/web-xgrammar');
    // Its emscripten loader reaches Node's `module` by dynamic import, which code compiled from a
    // string cannot do under every loader (vitest's, for one); the `require` given here does it.
    const source = (await readFile(file, 'utf8')).replace("await import('module')", "require('module')");
    const wrapper = new Function('exports', 'require', 'module', '__filename', '__dirname', source) as (...args: unknown[]) => void;
    const module = { exports: {} as XGrammar };
    wrapper(module.exports, createRequire(file), module, file, dirname(file));
    return module.exports;
  })());
