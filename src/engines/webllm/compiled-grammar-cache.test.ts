// @vitest-environment node
/**
 * The compiled grammars a web-llm model keeps: driven the way web-llm's pipeline drives its
 * compiler (compile, make a matcher, dispose what it got), with a compiler that counts its work;
 * pipeline-internals.test.ts checks that the installed web-llm still drives it so.
 */
import { describe, expect, it } from 'vitest';
import { cachingCompiler, type CompiledGrammarLike, type GrammarCompilerLike } from './compiled-grammar-cache.ts';

interface Counted extends GrammarCompilerLike {
  readonly compiled: string[];
  readonly disposed: string[];
  readonly alive: Set<string>;
  tokenizerInfo(): string;
}

function countingCompiler(): Counted {
  const compiled: string[] = [];
  const disposed: string[] = [];
  const alive = new Set<string>();
  return {
    compiled,
    disposed,
    alive,
    tokenizerInfo: () => 'info',
    async compileGrammar(grammar, root = 'root') {
      if (grammar === 'bad') throw new Error('does not compile');
      compiled.push(grammar);
      const name = `${grammar}#${compiled.length}`;
      alive.add(name);
      return {
        handle: { grammar, root, name },
        dispose: () => {
          disposed.push(name);
          alive.delete(name);
        },
      } as CompiledGrammarLike;
    },
    dispose() {
      disposed.push('compiler');
    },
  };
}

/** What web-llm's pipeline does with a grammar: compile it, read its handle into a matcher, dispose it. */
async function useOnce(compiler: GrammarCompilerLike, grammar: string): Promise<unknown> {
  const compiled = await compiler.compileGrammar(grammar);
  const handle = (compiled as unknown as { handle: unknown }).handle;
  compiled.dispose();
  return handle;
}

describe('compiled grammars kept for a web-llm model', () => {
  it('compile each grammar once, however requests alternate between them', async () => {
    const real = countingCompiler();
    const compiler = cachingCompiler(real, 4);
    const handles = new Map<string, unknown>();
    for (let turn = 0; turn < 6; turn++) {
      for (const grammar of ['tools', 'final-schema']) {
        const handle = await useOnce(compiler, grammar);
        expect(handles.get(grammar) ?? handle).toBe(handle);
        handles.set(grammar, handle);
      }
    }
    expect(real.compiled).toEqual(['tools', 'final-schema']);
    // The pipeline's dispose of what it got leaves the kept grammar alone.
    expect(real.disposed).toEqual([]);
    expect((await useOnce(compiler, 'tools')) as { grammar: string }).toMatchObject({ grammar: 'tools', root: 'root' });
  });

  it('give another grammar its own compile: never one grammar for another', async () => {
    const real = countingCompiler();
    const compiler = cachingCompiler(real, 4);
    expect(await useOnce(compiler, 'a')).toMatchObject({ grammar: 'a' });
    expect(await useOnce(compiler, 'b')).toMatchObject({ grammar: 'b' });
    expect(await (compiler.compileGrammar('a', 'other_root') as Promise<unknown>).then((c) => (c as { handle: unknown }).handle)).toMatchObject({ grammar: 'a', root: 'other_root' });
    expect(real.compiled).toEqual(['a', 'b', 'a']);
  });

  it('keep a bounded number, disposing what leaves, and everything with the compiler', async () => {
    const real = countingCompiler();
    const compiler = cachingCompiler(real, 2);
    for (const grammar of ['a', 'b', 'c']) await useOnce(compiler, grammar);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(real.disposed).toEqual(['a#1']);
    expect([...real.alive].sort()).toEqual(['b#2', 'c#3']);
    // Least recently used goes first: b was used after c here.
    await useOnce(compiler, 'b');
    await useOnce(compiler, 'd');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect([...real.alive].sort()).toEqual(['b#2', 'd#4']);
    compiler.dispose();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(real.alive.size).toBe(0);
    expect(real.disposed).toContain('compiler');
  });

  it('keep no failed compile, and pass everything else through', async () => {
    const real = countingCompiler();
    const compiler = cachingCompiler(real, 2);
    await expect(compiler.compileGrammar('bad')).rejects.toThrow('does not compile');
    await expect(compiler.compileGrammar('bad')).rejects.toThrow('does not compile');
    expect((compiler as Counted).tokenizerInfo()).toBe('info');
  });
});
