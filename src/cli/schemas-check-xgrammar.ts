/**
 * The `xgrammar` engine of `npx inpage-llm schemas check`: the product's own path, the constraint
 * compiler the Node engine decodes with (src/engines/grammar/token-constraint.ts), unchanged but
 * for what a measurement needs:
 * - every file's grammar is compiled anew: the compiler's cache is keyed per file, and xgrammar's
 *   own cache (which would also keep every grammar of a long run in wasm memory) is off;
 * - a failure inside xgrammar (an abort, a mask that failed) sets its instance aside, as the
 *   product does, and the next file is compiled on a fresh one.
 * @module
 */
import type { GrammarSpec } from '../engines/grammar/ebnf.ts';
import { loadXGrammar } from '../engines/grammar/load-xgrammar.node.ts';
import { createConstraintCompiler, type ConstraintCompiler } from '../engines/grammar/token-constraint.ts';
import type { TokenConstraint, Vocabulary } from '../engines/grammar/vocabulary.ts';
import { discardInstance } from '../engines/grammar/xgrammar-instances.ts';
import type { XGrammar } from '../engines/grammar/xgrammar.ts';
import type { CompiledSchema, PreparedSchemaEngine, SchemaEngine } from './schemas-check.ts';

/** Compiled before any file, outside the clock: it builds what the first request pays for once (the tokenizer's byte gates). */
const WARM_UP: GrammarSpec = { kind: 'json', output: { kind: 'json_object' } };

export const xgrammarEngine: SchemaEngine = {
  name: 'xgrammar',
  async prepare(vocabulary) {
    return new XGrammarRunner(vocabulary);
  },
};

class XGrammarRunner implements PreparedSchemaEngine {
  private readonly vocabulary: Vocabulary;
  private current: Promise<{ readonly instance: XGrammar; readonly compiler: ConstraintCompiler }> | undefined;
  /** Set by any failure inside xgrammar: the instance is not used again. */
  private failed = false;
  private files = 0;

  constructor(vocabulary: Vocabulary) {
    this.vocabulary = vocabulary;
  }

  /** The compiler on a sound instance, made (and warmed up) once per instance. */
  async ready(): Promise<ConstraintCompiler> {
    if (this.failed && this.current) {
      discardInstance((await this.current).instance);
      this.current = undefined;
    }
    this.failed = false;
    if (!this.current) {
      const made = (async () => {
        const instance = await loadXGrammar();
        const compiler = await createConstraintCompiler(uncached(instance), this.vocabulary, { schemaMatcher: false });
        (await compiler.start(WARM_UP)).dispose();
        return { instance, compiler };
      })();
      // One that failed to start is tried again at the next file.
      made.catch(() => this.current === made && (this.current = undefined));
      this.current = made;
    }
    return (await this.current).compiler;
  }

  async compile(spec: GrammarSpec): Promise<CompiledSchema> {
    const compiler = await this.ready();
    // A name of its own makes the compiler's cache key new (it keys on the whole spec, and the
    // name never reaches the grammar): the same schema in two files is compiled twice.
    const keyed: GrammarSpec = spec.kind === 'json' && spec.output.kind === 'json_schema' ? { ...spec, output: { ...spec.output, name: `schemas-check-${++this.files}` } } : spec;
    const start = async () => {
      try {
        return this.watched(await compiler.start(keyed));
      } catch (error) {
        this.failed = true;
        throw error;
      }
    };
    // The first matcher compiles the grammar; the next ones share it.
    let first: Promise<TokenConstraint> | undefined = start();
    await first;
    return {
      start: () => {
        const made = first ?? start();
        first = undefined;
        return made;
      },
    };
  }

  /** `constraint`, telling this runner when xgrammar failed under it. */
  private watched(constraint: TokenConstraint): TokenConstraint {
    const failed = () => (this.failed = true);
    return {
      mask: () => constraint.mask(),
      ready: () => constraint.ready().then(() => void (constraint.mask() ?? failed()), (error: unknown) => (failed(), Promise.reject(error))),
      accept: (token) => {
        try {
          return constraint.accept(token);
        } catch (error) {
          failed();
          throw error;
        }
      },
      get terminated() {
        return constraint.terminated;
      },
      dispose: () => constraint.dispose(),
    };
  }
}

/**
 * `instance` with xgrammar's compiler cache off. The same object otherwise (its prototype): the
 * product sets aside the object it was given when a call fails, so this runner watches for
 * failures itself and sets the instance aside (`XGrammarRunner.watched`).
 */
function uncached(instance: XGrammar): XGrammar {
  return Object.create(instance, {
    GrammarCompiler: { value: { createGrammarCompiler: (info: Parameters<XGrammar['GrammarCompiler']['createGrammarCompiler']>[0]) => instance.GrammarCompiler.createGrammarCompiler(info, false) } },
  }) as XGrammar;
}
