/**
 * Compiled grammars kept across requests for a web-llm model. web-llm keeps one: a request whose
 * grammar differs from the last one's compiles it again (xgrammar against the whole vocabulary,
 * seconds on Qwen's 151,936 tokens), so an agent alternating between its tools and a final JSON
 * schema paid the compile on every turn. Wrapped around the pipeline's xgrammar compiler
 * (pipeline-internals.ts installs it), `compileGrammar` answers a grammar compiled before from a
 * bounded cache; the pipeline disposes what it gets once its matcher is made (a matcher holds what
 * it needs of it), so what it gets is a view whose `dispose` leaves the kept grammar alone. A kept
 * grammar is disposed when it leaves the cache, or with the compiler.
 * @module
 */
import { createGrammarCache } from '../grammar/grammar-cache.ts';

/** The part of xgrammar's compiled grammar web-llm uses: a handle, and `dispose`. */
export interface CompiledGrammarLike {
  dispose(): void;
}

/** The part of xgrammar's GrammarCompiler the cache stands in front of. */
export interface GrammarCompilerLike {
  compileGrammar(grammar: string, rootRule?: string): Promise<CompiledGrammarLike>;
  dispose(): void;
}

/** Grammars kept per model: at most this many, and this much grammar text. */
export const GRAMMARS_KEPT = 16;
export const GRAMMAR_TEXT_KEPT = 1024 * 1024;

/** `compiler` with its `compileGrammar` answered from a cache; every other member is its own. */
export function cachingCompiler<C extends GrammarCompilerLike>(compiler: C, entries = GRAMMARS_KEPT, bytes = GRAMMAR_TEXT_KEPT): C {
  const cache = createGrammarCache<Promise<CompiledGrammarLike>>(entries, bytes, (dropped) => {
    dropped.then((compiled) => compiled.dispose(), () => {});
  });
  const compileGrammar = (grammar: string, rootRule = 'root'): Promise<CompiledGrammarLike> => {
    const key = `${rootRule}\n${grammar}`;
    let compiled = cache.get(key);
    if (!compiled) {
      compiled = compiler.compileGrammar(grammar, rootRule);
      const made = compiled;
      // A failed compile is not kept (the next request tries again).
      made.catch(() => {
        if (cache.get(key) === made) cache.delete(key);
      });
      cache.set(key, compiled, key.length);
    }
    // The kept grammar, but for `dispose`, which the pipeline calls once its matcher is made.
    return compiled.then((kept) => Object.create(kept, { dispose: { value: () => {} } }) as CompiledGrammarLike);
  };
  const dispose = () => {
    cache.clear();
    compiler.dispose();
  };
  return new Proxy(compiler, {
    get(target, property) {
      if (property === 'compileGrammar') return compileGrammar;
      if (property === 'dispose') return dispose;
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
