/**
 * xgrammar in a browser worker: its UMD bundle, imported as a module, installs itself as
 * `globalThis.xgrammar` (its wasm is inlined, so nothing else is fetched).
 * @module
 */
import type { LoadXGrammar, XGrammar } from './xgrammar.ts';

let loaded: Promise<XGrammar> | undefined;

export const loadXGrammar: LoadXGrammar = () =>
  (loaded ??= import('@mlc-ai/web-xgrammar').then((module: unknown) => {
    const api = (globalThis as { xgrammar?: XGrammar }).xgrammar ?? (module as { default?: XGrammar }).default;
    if (!api?.GrammarCompiler) throw new Error('@mlc-ai/web-xgrammar did not load.');
    return api;
  }));
