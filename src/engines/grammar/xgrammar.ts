/**
 * The grammar engine under constrained decoding: xgrammar (@mlc-ai/web-xgrammar, the one web-llm
 * uses), compiled to wasm, so one implementation serves Node and the worker. Its package is a UMD
 * bundle marked as ESM, which neither Node nor bundlers import as a module with exports; each
 * runtime has a loader of its own (`load-xgrammar.*.ts`) and hands it to the engine that needs it.
 * @module
 */
import type { CompiledGrammar, GrammarCompiler, GrammarMatcher, Testings, TokenizerInfo } from '@mlc-ai/web-xgrammar';

/** The part of xgrammar's API used here. */
export interface XGrammar {
  readonly TokenizerInfo: Pick<typeof TokenizerInfo, 'createTokenizerInfo'>;
  readonly GrammarCompiler: Pick<typeof GrammarCompiler, 'createGrammarCompiler'>;
  readonly GrammarMatcher: Pick<typeof GrammarMatcher, 'createGrammarMatcher'>;
  /** The JSON schema converter on its own (see factor-literals.ts for why it is called apart). */
  readonly Testings: Pick<typeof Testings, '_jsonSchemaToEBNF'>;
}

export type LoadXGrammar = () => Promise<XGrammar>;
export type { CompiledGrammar, GrammarCompiler, GrammarMatcher, TokenizerInfo };
