/**
 * xgrammar in a browser worker. A failed instance is replaced (xgrammar-instances.ts) by
 * importing the chunk that holds the bundle again under its URL plus a fragment: the module map
 * takes it for another module and evaluates it afresh, while the fetch, which drops the fragment,
 * is answered from the cache like the first.
 * @module
 */
import { instanceLoader } from './xgrammar-instances.ts';
import type { LoadXGrammar, XGrammar } from './xgrammar.ts';

type BundleModule = typeof import('./xgrammar-bundle.browser.ts');

let first: BundleModule | undefined;
let last: XGrammar | undefined;

export const loadXGrammar: LoadXGrammar = instanceLoader(async (n) => {
  let loaded: BundleModule;
  if (!first) {
    loaded = first = await import('./xgrammar-bundle.browser.ts');
  } else if (first.url === (globalThis as { location?: { href: string } }).location?.href) {
    // Bundled into the worker's own script: importing that again would start the worker again.
    loaded = first;
  } else {
    loaded = (await import(/* @vite-ignore */ `${first.url.split('#')[0]}#instance-${n}`)) as BundleModule;
  }
  const api = loaded.xgrammar;
  if (!api?.GrammarCompiler) throw new Error('@mlc-ai/web-xgrammar did not load.');
  // Served from source (vite's dev server), the bundle is a module of its own that stays loaded.
  if (api === last) console.warn('inpage-llm: xgrammar could not be loaded afresh; the failed instance stays in use.');
  last = api;
  return api;
});
