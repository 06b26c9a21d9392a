/**
 * xgrammar's UMD bundle as a module of its own, so that it lands in a chunk of its own: evaluating
 * that chunk again, under another URL, is a fresh instance (see load-xgrammar.browser.ts). Where a
 * bundler wraps it as CommonJS (vite's build does), it is the default export, made anew with the
 * chunk; imported as a plain module, it installs itself as `globalThis.xgrammar` at each
 * evaluation. Its wasm is inlined, so nothing else is fetched.
 * @module
 */
import * as bundle from '@mlc-ai/web-xgrammar';
import type { XGrammar } from './xgrammar.ts';

export const xgrammar = (bundle as { default?: XGrammar }).default ?? (globalThis as { xgrammar?: XGrammar }).xgrammar;
/** Where this chunk was loaded from. */
export const url = import.meta.url;
